
// The user's loads first (issue 39; written in by `cargo xtask build`, xtask/src/chunk_priority.rs).
// A split module is loaded either for the user (the app calls its loader) or ahead of need
// (`globalThis.__concordChunks.prefetch(name)`, the app's idle prefetch, src/edge/chunks.rs).
// A prefetch's files are fetched at low priority and only while nothing the user asked for
// is loading: a user's fetch aborts every prefetch fetch on its way that it does not need,
// and those start again, from the start, once the user's loads are in. A prefetched file is
// handed to the loader whole (a Response made of its bytes), so the loader never sees an
// abort; a file the user then needs is promoted: a fetch on its way goes on, a deferred one
// starts at once at high priority.
let prefetching = false;
let userLoads = 0;
let current = null;
const pending = new Set();

function userBusy() {
    if (userLoads > 0) return true;
    for (const r of pending) if (r.controller && !r.prefetch) return true;
    return false;
}

function startFetch(request) {
    const controller = new AbortController();
    const prefetch = request.prefetch;
    request.controller = controller;
    fetch(request.url, { signal: controller.signal, priority: prefetch ? "low" : "high" })
        .then(async (response) => {
            if (!prefetch || !response.ok) return response;
            const body = await response.arrayBuffer();
            return new Response(body, { status: response.status, headers: response.headers });
        })
        .then((response) => {
            if (request.controller !== controller) return;
            pending.delete(request);
            request.resolve(response);
            resumePrefetches();
        }, (error) => {
            // Deferred meanwhile: it starts again later.
            if (request.controller !== controller) return;
            pending.delete(request);
            request.reject(error);
            resumePrefetches();
        });
}

function chunkFetch(url) {
    const request = { url, prefetch: prefetching && !(current && current.wanted), controller: null };
    request.done = new Promise((resolve, reject) => { request.resolve = resolve; request.reject = reject; });
    request.shared = String(url).endsWith(".bin");
    pending.add(request);
    if (current) current.requests.push(request);
    if (!request.prefetch) {
        startFetch(request);
        // After the user's load has claimed, in this same task, every file it needs.
        queueMicrotask(deferPrefetches);
    } else if (!userBusy()) {
        startFetch(request);
    }
    return request.done;
}

function deferPrefetches() {
    for (const request of pending) {
        if (request.prefetch && request.controller) {
            const controller = request.controller;
            request.controller = null;
            controller.abort();
        }
    }
}

function resumePrefetches() {
    if (userBusy()) return;
    for (const request of pending) {
        if (!request.controller) startFetch(request);
    }
}

function promote(unit) {
    if (!unit || unit.wanted) return;
    unit.wanted = true;
    for (const request of unit.requests) promoteRequest(request);
    for (const dep of unit.deps) promote(dep);
}

function promoteRequest(request) {
    if (!pending.has(request) || !request.prefetch) return;
    request.prefetch = false;
    if (!request.controller) startFetch(request);
}

function makeLoad(fetcher, deps) {
    const unit = { requests: [], deps: deps.map((d) => d.unit), wanted: false };
    const load = makeLoadPlain(() => {
        const outer = current;
        current = unit;
        try {
            return fetcher();
        } finally {
            current = outer;
        }
    }, deps);
    const wanted = () => {
        if (prefetching) return load();
        promote(unit);
        // The small chunks' pack serves almost every module.
        for (const request of pending) if (request.shared) promoteRequest(request);
        const loading = load();
        userLoads++;
        const settle = () => {
            userLoads--;
            resumePrefetches();
        };
        loading.then(settle, settle);
        return loading;
    };
    wanted.unit = unit;
    return wanted;
}

function wrapAsyncCb(callee) {
    const callback = wrapAsyncCbPlain(callee);
    callback.load = callee;
    return callback;
}

function prefetchSplit(split) {
    if (!split) return Promise.resolve(false);
    prefetching = true;
    let loading;
    try {
        loading = split.load();
    } finally {
        prefetching = false;
    }
    return loading.then(() => true, () => false);
}
