//! Work done in the loader's Web Worker so the page never freezes: loading datasets
//! ([`load`]; an AltTest folder's two files, [`folder`]), opening or writing bundles ([`bundle`]) and counting prompt tokens with
//! OpenAI's encodings ([`tokens`]), over one conversation ([`protocol`]); [`entry`] is the
//! worker's side of it. Modules depend downwards only: `entry` → `load`, `folder`, `bundle`, `tokens` →
//! `protocol`.

pub mod bundle;
pub mod entry;
pub mod folder;
pub mod load;
pub mod protocol;
pub mod tokens;

pub use load::{
    LoadStage, decode, encode, load_buffer_in_worker, load_buffer_with_mapping_in_worker,
    load_in_worker, load_on_main_thread, load_with_mapping_in_worker,
    load_with_mapping_on_main_thread,
};
pub use protocol::{WORKER_SCRIPT, WorkerError};
