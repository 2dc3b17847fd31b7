//! Seed 003's meta-evaluation protocols: an LLM judges the *assessments* other judges made.
//!
//! Pairwise paradigm: [`JdEval`] (judge directly, Table 10) and [`MdEval`] (the judge may
//! question both assessors in a debate and must decide within five rounds, Table 11).
//! Individual paradigm: [`JdEvalI`] (score one assessment, Tables 12–13) and [`BsmEval`]
//! (branch into at most five sub-tasks, score each, merge by the average).
//!
//! The judge prompts are the paper's (its line breaks come from a PDF, so spacing is ours).
//! The paper does not print the debaters' prompts nor BSMEval's branch/solve prompts; ours are
//! marked as such.

use super::parse::{self, Policy, TagRatingError, Verdict, VerdictError};
use super::protocol::{Protocol, ProtocolError, Sampling};
use super::request::{ChatRequest, ChatResponse, Message};
use super::template::{Part, PartKind, PromptTemplate, RenderError};
use serde::{Deserialize, Serialize};

/// JDEval's prompt (003 Table 10). Placeholders: `question`, `answer1`, `answer2`,
/// `result1`, `result2`.
pub const JDEVAL_PROMPT: &str = "Please act as an impartial judge and evaluate the quality of the assessments provided by two AI assistants.
You will be given the original question and two answers(AnswerA and AnswerB) given to two assistants(assistant1 and assistant2), and the two assistants' assessments about the two answers. The two answers are wriiten by human, not by two assistants.
You should choose the assistant which offers a more reasonable and more fair assessment to the two answers.
##STEPS
1.Read carefully the original question and the two answers given to two assistants, choose which answer you think is better and give your reason.
2.Read the two assistants' assessments for two answers. If both of two assisstants chose the same better answer as you chose, you should read their explanations why they made this choice, and judge which explanation is more reasonable. \"equally good\" means the two assistsnts' explanations are equally reasonable, assistant1 means the assistant1's explanation is more reasonable than the assistant2's explanation. assistant2 means the assistant2's explannation is more reasonable than the assistant1's explanation. If one of the assistant chose the same better answer as you did , and the other assistant chose differently from what you chose, you should choose the assistant who chose same better answer with you as better evaluator and your reasoning should be that one evaluator made the right choice and the other one chose the wrong better answer. If both of them chose differently from what you chose as better answer, no matter which answer they thought was better, you should output \"equally good\" and your reasoning should be that two assistants both made the wrong assessments.
Here are original question and answers:
### Ouestion:
{{question}}
### AnswerA:
{{answer1}}
### AnswerB:
{{answer2}}
Here are assessments made by two assistants:
### Assessment of assistant1:
{{result1}}
### Assessment of assistant2:
{{result2}}
## Attention
1. Avoid any position biases and ensure that the order in which the assistant's judgements were presented does not influence your decision.
2.Do not allow the length of the reason of assistant to influence your evaluation.
3.Be as objective as possible.
4. The two answers have nothing to do with the two assistants.
5.Please output your judgement by strictly following this format:
<Reasoning_for_choosing_better_answer>
(your reasoning process only for comparing the two answers)
</Reasoning_for_choosing_better_answer>
<Better_answer>
(choose AnswerA or AnswerB or equally good)
</Better_answer>
<Reasoning_for_choosing_better_assistant>
(your reasoning process only for comparing the two assistants' assessments )
</Reasoning_for_choosing_better_assistant>
<Better_assistant>
(your final judgement for which assistant is better:choose Assistant1 or Assistant2 or equally good)
</Better_assistant>";

/// MDEval's judge system prompt (003 Table 11). Placeholders: `input`, `output1`, `output2`,
/// `eval_results1`, `eval_results2`.
pub const MDEVAL_JUDGE_SYSTEM: &str = "##INSTRUCTIONS
Please act as an impartial Judge and evaluate the quality of the assessments provided by two AI assistants. The two assistants will have a debate between them to pursuade you that their own assessments are more reasonable and fair. You will be given the original question and two answers(AnswerA and AnswerB) given to two assistants(assistant1 and assistant2), the two assistants' assessments about the two answers and the current debate transcript. You should choose the assistant which offers a more reasonable and more fair assessment to the two answers according to their debate.
##STEPS
1. You should firstly read the two assistants' assessments for two answers and the current debate transcript. If you can decide which assistant's assessment is better and is more reasonable, you should end the debate and output the better assistant and your reasoning process.
2. If you cannot decide which assistant's assessment is better by two AI assistants' initial arguments, you can ask both assistants quetions according to their evaluation results to help you choose which assistant's evaluation results is more accurate and better. You should output your question about the two assistant's debate or their assessments.
3. Eventually, you, as the Judge, decides to end the debate when you can choose the better AI assistant.
##ATTENTION
1. There could be a number of rounds for debate. But you must make your final judgement within five rounds.
In each round, both debaters make their arguments simulatenously.
You must be concise and clearly state your question or your reasoning, which shoule be limited to 200 words.
Here are original question and answers:
### Question:
{{input}}

### AnswerA:
{{output1}}

### AnswerB:
{{output2}}

Here are assessments made by two assistants:
### Assessment of assistant1:
{{eval_results1}}

### Assessment of assistant2:
{{eval_results2}}";

/// MDEval's judge user prompt (003 Table 11). Placeholder: `transcript`.
pub const MDEVAL_JUDGE_USER: &str = "Here is the current debate transcript:
{{transcript}}
If you can decide which assistant's evaluation results is better, output the better assistant and your reasoning process by following this format:
<Reasoning_for_choosing_better_assistant>
(your reasoning process only for comparing the two assistants' assessments )
</Reasoning_for_choosing_better_assistant>
<Better_assistant>
(your final judgement for which assistant is better: choose Assistant1 or Assistant2 or equally good)
</Better_assistant>
If you cannot decide which assistant's evaluation results is more reasonable and fair, you can ask both assistants quetions, directly output your questions by following this format:
<Question>
(your question about the two assistant's debate or their assessments)
</Question>";

/// The debaters' prompt. Not printed in seed 003; written for Concord. Placeholders as in
/// [`MDEVAL_JUDGE_SYSTEM`] plus `me` (`Assistant1`/`Assistant2`), `my_assessment`,
/// `transcript` and `question_from_judge`.
pub const MDEVAL_DEBATER: &str = "You are {{me}} in a debate judged by an impartial Judge. You assessed two answers to a question; another assistant assessed them too. Defend your assessment where it is right, concede where it is wrong, and answer the Judge's question in at most 200 words.
### Question:
{{input}}
### AnswerA:
{{output1}}
### AnswerB:
{{output2}}
### Your assessment:
{{my_assessment}}
### Debate transcript so far:
{{transcript}}
### The Judge asks:
{{question_from_judge}}";

/// The judge may ask at most this many rounds of questions (003 §5.2.2).
pub const MDEVAL_MAX_ROUNDS: usize = 5;

/// The pair of assessments being meta-evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssessedPair {
    /// The original question.
    pub question: String,
    /// Answer A.
    pub answer_a: String,
    /// Answer B.
    pub answer_b: String,
    /// Assistant 1's assessment of the two answers.
    pub assessment_1: String,
    /// Assistant 2's assessment.
    pub assessment_2: String,
}

/// A verdict read from a response, or what went wrong reading it.
pub type ReadVerdict = Result<Verdict, VerdictError>;

/// JDEval's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JdEvalOutcome {
    /// The judge's own choice between the answers (`<Better_answer>`).
    pub better_answer: ReadVerdict,
    /// The better assessor (`<Better_assistant>`; `First` = Assistant1).
    pub better_assistant: ReadVerdict,
    /// The raw response.
    pub response: String,
}

/// JDEval: the judge reads both assessments and picks the better assessor directly.
#[derive(Debug, Clone)]
pub struct JdEval {
    request: ChatRequest,
    outcome: Option<JdEvalOutcome>,
}

impl JdEval {
    /// Prepares the request with [`JDEVAL_PROMPT`].
    pub fn new(tag: &str, pair: &AssessedPair, sampling: &Sampling) -> Result<JdEval, RenderError> {
        let fields = [
            ("question", pair.question.as_str()),
            ("answer1", pair.answer_a.as_str()),
            ("answer2", pair.answer_b.as_str()),
            ("result1", pair.assessment_1.as_str()),
            ("result2", pair.assessment_2.as_str()),
        ];
        let prompt = single(JDEVAL_PROMPT).render(&fields)?;
        Ok(JdEval { request: sampling.request(tag, vec![Message::user(prompt)]), outcome: None })
    }
}

fn single(text: &str) -> PromptTemplate {
    PromptTemplate::new(vec![Part::new(PartKind::Other, text)])
}

fn first_text<'a>(tag: &str, responses: &'a [ChatResponse]) -> Result<&'a str, ProtocolError> {
    responses
        .first()
        .map(|r| r.text.as_str())
        .ok_or_else(|| ProtocolError::NoResponse { tag: tag.to_owned() })
}

impl Protocol for JdEval {
    type Outcome = JdEvalOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        if self.outcome.is_some() { Vec::new() } else { vec![self.request.clone()] }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        if self.outcome.is_some() || tag != self.request.tag {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        }
        let text = first_text(tag, responses)?;
        self.outcome = Some(JdEvalOutcome {
            better_answer: parse::better_answer(text),
            better_assistant: parse::better_assistant(text),
            response: text.to_owned(),
        });
        Ok(())
    }

    fn outcome(&self) -> Option<JdEvalOutcome> {
        self.outcome.clone()
    }
}

/// One exchange of an MDEval debate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebateRound {
    /// The judge's question.
    pub question: String,
    /// Assistant 1's answer.
    pub answer_1: String,
    /// Assistant 2's answer.
    pub answer_2: String,
}

/// How an MDEval debate ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MdEvalOutcome {
    /// The judge's decision, or why there is none (no decision within
    /// [`MDEVAL_MAX_ROUNDS`] rounds, or an unreadable final answer).
    pub better_assistant: ReadVerdict,
    /// Question rounds held before the decision.
    pub rounds: Vec<DebateRound>,
    /// The judge's responses, in order.
    pub judge_responses: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum MdState {
    /// Waiting for the judge's response in round `rounds.len()`.
    Judge,
    /// Waiting for the debaters' answers to `question`.
    Debate {
        question: String,
        answer_1: Option<String>,
        answer_2: Option<String>,
    },
    Done(ReadVerdict),
}

/// MDEval: the judge decides or asks a question; both assessors answer with the transcript so
/// far; after at most five question rounds the judge must decide.
#[derive(Debug, Clone)]
pub struct MdEval {
    tag: String,
    pair: AssessedPair,
    sampling: Sampling,
    system: String,
    rounds: Vec<DebateRound>,
    judge_responses: Vec<String>,
    state: MdState,
    max_rounds: usize,
}

impl MdEval {
    /// Starts a debate about `pair`.
    pub fn new(tag: &str, pair: AssessedPair, sampling: Sampling) -> Result<MdEval, RenderError> {
        let system = single(MDEVAL_JUDGE_SYSTEM).render(&Self::base_fields(&pair))?;
        Ok(MdEval {
            tag: tag.to_owned(),
            pair,
            sampling,
            system,
            rounds: Vec::new(),
            judge_responses: Vec::new(),
            state: MdState::Judge,
            max_rounds: MDEVAL_MAX_ROUNDS,
        })
    }

    /// Allows at most `rounds` question rounds (clamped to 1..=[`MDEVAL_MAX_ROUNDS`]; the
    /// default is the paper's five). A judge that asks one more question instead of deciding
    /// ends the debate without a decision.
    pub fn with_max_rounds(mut self, rounds: usize) -> MdEval {
        self.max_rounds = rounds.clamp(1, MDEVAL_MAX_ROUNDS);
        self
    }

    fn base_fields(pair: &AssessedPair) -> [(&str, &str); 5] {
        [
            ("input", pair.question.as_str()),
            ("output1", pair.answer_a.as_str()),
            ("output2", pair.answer_b.as_str()),
            ("eval_results1", pair.assessment_1.as_str()),
            ("eval_results2", pair.assessment_2.as_str()),
        ]
    }

    /// The transcript the judge and debaters see: each round's question and both answers.
    pub fn transcript(&self) -> String {
        if self.rounds.is_empty() {
            return "(no debate yet)".to_owned();
        }
        let mut t = String::new();
        for (i, r) in self.rounds.iter().enumerate() {
            t.push_str(&format!(
                "Round {}\nJudge: {}\nAssistant1: {}\nAssistant2: {}\n",
                i + 1,
                r.question,
                r.answer_1,
                r.answer_2
            ));
        }
        t
    }

    fn judge_request(&self) -> ChatRequest {
        let transcript = self.transcript();
        // The user template has one placeholder and the transcript is ours, so rendering
        // cannot fail; fall back to the raw template rather than panic.
        let user = single(MDEVAL_JUDGE_USER)
            .render(&[("transcript", transcript.as_str())])
            .unwrap_or_else(|_| MDEVAL_JUDGE_USER.to_owned());
        self.sampling.request(
            format!("{}/judge/{}", self.tag, self.rounds.len()),
            vec![Message::system(self.system.clone()), Message::user(user)],
        )
    }

    fn debater_request(&self, which: u8, question: &str) -> ChatRequest {
        let transcript = self.transcript();
        let (me, mine) = if which == 1 {
            ("Assistant1", self.pair.assessment_1.as_str())
        } else {
            ("Assistant2", self.pair.assessment_2.as_str())
        };
        let base = Self::base_fields(&self.pair);
        let extra = [
            ("me", me),
            ("my_assessment", mine),
            ("transcript", transcript.as_str()),
            ("question_from_judge", question),
        ];
        let fields: Vec<(&str, &str)> = base.iter().chain(extra.iter()).copied().collect();
        let prompt = single(MDEVAL_DEBATER)
            .render(fields.as_slice())
            .unwrap_or_else(|_| MDEVAL_DEBATER.to_owned());
        self.sampling.request(
            format!("{}/debater{}/{}", self.tag, which, self.rounds.len()),
            vec![Message::user(prompt)],
        )
    }
}

impl Protocol for MdEval {
    type Outcome = MdEvalOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        match &self.state {
            MdState::Judge => vec![self.judge_request()],
            MdState::Debate { question, answer_1, answer_2 } => {
                let mut out = Vec::new();
                if answer_1.is_none() {
                    out.push(self.debater_request(1, question));
                }
                if answer_2.is_none() {
                    out.push(self.debater_request(2, question));
                }
                out
            }
            MdState::Done(_) => Vec::new(),
        }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        let unknown = || ProtocolError::UnknownTag { tag: tag.to_owned() };
        let round = self.rounds.len();
        let max_rounds = self.max_rounds;
        match &mut self.state {
            MdState::Judge => {
                if tag != format!("{}/judge/{round}", self.tag) {
                    return Err(unknown());
                }
                let text = first_text(tag, responses)?.to_owned();
                self.judge_responses.push(text.clone());
                // A decision ends the debate; a question opens a round unless the five
                // rounds are used up, in which case the missing decision is the outcome.
                let decision = parse::better_assistant(&text);
                self.state = match (decision, parse::question(&text)) {
                    (Ok(v), _) => MdState::Done(Ok(v)),
                    (Err(_), Some(q)) if round < max_rounds => {
                        MdState::Debate { question: q.to_owned(), answer_1: None, answer_2: None }
                    }
                    (Err(_), Some(_)) => {
                        MdState::Done(Err(VerdictError::NoDecision { rounds: max_rounds }))
                    }
                    (Err(e), None) => MdState::Done(Err(e)),
                };
                Ok(())
            }
            MdState::Debate { question, answer_1, answer_2 } => {
                let text = first_text(tag, responses)?.to_owned();
                if tag == format!("{}/debater1/{round}", self.tag) && answer_1.is_none() {
                    *answer_1 = Some(text);
                } else if tag == format!("{}/debater2/{round}", self.tag) && answer_2.is_none() {
                    *answer_2 = Some(text);
                } else {
                    return Err(unknown());
                }
                if let (Some(a1), Some(a2)) = (answer_1.as_ref(), answer_2.as_ref()) {
                    self.rounds.push(DebateRound {
                        question: question.clone(),
                        answer_1: a1.clone(),
                        answer_2: a2.clone(),
                    });
                    self.state = MdState::Judge;
                }
                Ok(())
            }
            MdState::Done(_) => Err(unknown()),
        }
    }

    fn outcome(&self) -> Option<MdEvalOutcome> {
        match &self.state {
            MdState::Done(v) => Some(MdEvalOutcome {
                better_assistant: v.clone(),
                rounds: self.rounds.clone(),
                judge_responses: self.judge_responses.clone(),
            }),
            _ => None,
        }
    }
}

/// JDEval-i's prompt for SummEval coherence (003 Table 13). Placeholders `text`,
/// `eval_result`.
pub const JDEVAL_I_SUMMEVAL: &str = "##INSTRUCTIONS
Please act as an impartial judge and evaluate the quality of the assessment provided by AI assistant.
You will be given the original text given to AI assistant, and the AI assistant's assessment for the text's coherence aspect, including a score ranging from 1 to 5 and its reason for why giving such a score.
You should assign a score from 1 to 5 to AI assistant's assessment, where 1 indicates the AI assistant's assessment is poor, and 5 indicates it is excellent.
##STEPS
1.Please read the text carefully and assign it a score from 1 to 5 for the text's coherence, You should focus solely on coherence and do not take into account any other factors.
2.Read the AI assistant's assessment carefully and assign a score from 1 to 5 to the AI assistant's assesment for the text's coherence
Here is the text:
### Text:
{{text}}
Here is the assessment made by AI assistant:
### Assessment:
{{eval_result}}
## Attention
1.Do not allow the length of the reason of assistant to influence your evaluation for AI assistant.
2.Be as objective as possible.
3. The text has nothing to do with the AI assistant, the text is written by human, not by AI assistant.
4.Please output your judgement by strictly following this format:
<Reasoning_for_scoring_text_coherence>
(your reasoning process only for scoring the story)
</Reasoning_for_scoring_text_coherence>
<Score_for_text_coherence>
(assign a score from 1 to 5 to the story)
</Score_for_text_coherence>
<Reasoning_for_scoring_Assistant_assessment>
(your reasoning process only for scoring assistant's assessment )
</Reasoning_for_scoring_Assistant_assessment>
<Score_for_Assistant_assessment>
(assign a score from 1 to 5 to the assistant's assessment)
</Score_for_Assistant_assessment>";

/// JDEval-i's prompt for OpenMEVA stories (003 Table 12). Placeholders `text`, `eval_result`.
pub const JDEVAL_I_OPENMEVA: &str = "##INSTRUCTIONS
Please act as an impartial judge and evaluate the quality of the assessment provided by AI assistant.
You will be given the original five-line story given to AI assistant, and the AI assistant's assessment including a score ranging from 1 to 5 and its reason for why giving such a score.
You should assign a score from 1 to 5 to AI assistant's assessment, where 1 indicates the AI assistant's assessment is poor, and 5 indicates it is excellent.
##STEPS
1.Please read the story carefully and assign it a score from 1 to 5 for the story's overall quality, considering factors such as the coherence, fluency, consistency, interestingness and creativity of the short story.
2.Read the AI assistant's assessment carefully.Based on your own rating for story, you should judge whether the assistant's assessment is reasonable and assign a score from 1 to 5 to the AI assistant's assessment.
Here is the story:
### Story:
{{text}}
Here is the assessment made by AI assistant:
### Assessment:
{{eval_result}}
## Attention
1.Do not allow the length of the reason of assistant to influence your evaluation for AI assistant.
2.Be as objective as possible.
3. The five-line story has nothing to do with the AI assistant, the story is written by human, not by AI assistant.
4.Please output your judgement by strictly following this format:
<Reasoning_for_scoring_story>
(your reasoning process only for scoring the story)
</Reasoning_for_scoring_story>
<Score_for_story>
(assign a score from 1 to 5 to the story)
</Score_for_story>
<Reasoning_for_scoring_Assistant>
(your reasoning process only for scoring assistant's assessment )
</Reasoning_for_scoring_Assistant>
<Score_for_Assistant>
(assign a score from 1 to 5 to the assistant's assessment)
</Score_for_Assistant>";

/// Which JDEval-i prompt, and so which tags to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndividualTask {
    /// SummEval coherence (`<Score_for_text_coherence>`, `<Score_for_Assistant_assessment>`).
    SummEvalCoherence,
    /// OpenMEVA stories (`<Score_for_story>`, `<Score_for_Assistant>`).
    OpenMeva,
}

impl IndividualTask {
    fn prompt(self) -> &'static str {
        match self {
            IndividualTask::SummEvalCoherence => JDEVAL_I_SUMMEVAL,
            IndividualTask::OpenMeva => JDEVAL_I_OPENMEVA,
        }
    }

    fn tags(self) -> (&'static str, &'static str) {
        match self {
            IndividualTask::SummEvalCoherence => {
                ("Score_for_text_coherence", "Score_for_Assistant_assessment")
            }
            IndividualTask::OpenMeva => ("Score_for_story", "Score_for_Assistant"),
        }
    }
}

/// JDEval-i's result for one assessment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JdEvalIOutcome {
    /// The judge's own score of the text (1–5).
    pub text_score: Result<f64, TagRatingError>,
    /// The judge's score of the assessment (1–5): what ranks the assessors.
    pub assessment_score: Result<f64, TagRatingError>,
    /// The raw response.
    pub response: String,
}

/// JDEval-i: the judge scores one assessment directly.
#[derive(Debug, Clone)]
pub struct JdEvalI {
    task: IndividualTask,
    policy: Policy,
    request: ChatRequest,
    outcome: Option<JdEvalIOutcome>,
}

impl JdEvalI {
    /// Prepares the request; `policy` reads the numbers inside the score tags.
    pub fn new(
        tag: &str,
        task: IndividualTask,
        text: &str,
        assessment: &str,
        policy: Policy,
        sampling: &Sampling,
    ) -> Result<JdEvalI, RenderError> {
        let prompt =
            single(task.prompt()).render(&[("text", text), ("eval_result", assessment)])?;
        Ok(JdEvalI {
            task,
            policy,
            request: sampling.request(tag, vec![Message::user(prompt)]),
            outcome: None,
        })
    }
}

impl Protocol for JdEvalI {
    type Outcome = JdEvalIOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        if self.outcome.is_some() { Vec::new() } else { vec![self.request.clone()] }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        if self.outcome.is_some() || tag != self.request.tag {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        }
        let text = first_text(tag, responses)?;
        let (t_text, t_assess) = self.task.tags();
        let scale = Some((1.0, 5.0));
        self.outcome = Some(JdEvalIOutcome {
            text_score: parse::rating_tag(text, t_text, self.policy, scale),
            assessment_score: parse::rating_tag(text, t_assess, self.policy, scale),
            response: text.to_owned(),
        });
        Ok(())
    }

    fn outcome(&self) -> Option<JdEvalIOutcome> {
        self.outcome.clone()
    }
}

/// BSMEval's branch prompt (written for Concord; 003 only describes the step). Placeholders
/// `text`, `eval_result`, `max_branches`.
pub const BSM_BRANCH: &str = "We want to judge how good an AI assistant's assessment of a text is. Decide how to break this meta-evaluation down into no more than {{max_branches}} sub-tasks, each checking one aspect of the assessment.
### Text:
{{text}}
### Assessment:
{{eval_result}}
List the sub-tasks, one per line, as a numbered list (1. …), and nothing else.";

/// BSMEval's solve prompt (written for Concord). Placeholders `text`, `eval_result`,
/// `subtask`.
pub const BSM_SOLVE: &str = "Please act as an impartial judge of an AI assistant's assessment of a text, on one aspect only.
### Aspect:
{{subtask}}
### Text:
{{text}}
### Assessment:
{{eval_result}}
Explain briefly, then score the assessment on this aspect from 1 (poor) to 5 (excellent) in this format:
<Explanation> (your explanation) </Explanation>
<Score> (1 to 5) </Score>";

/// At most this many branches are solved (003 §5.3.2: "no more than five sub-task").
pub const BSM_MAX_BRANCHES: usize = 5;

/// BSMEval's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BsmOutcome {
    /// The sub-tasks, as the judge listed them (at most five are kept).
    pub branches: Vec<String>,
    /// Each branch's score, or why it could not be read.
    pub scores: Vec<Result<f64, TagRatingError>>,
    /// The merge: the mean of the readable branch scores; `None` if none could be read or
    /// the judge listed no sub-task.
    pub merged: Option<f64>,
    /// Each branch's raw solve response, in branch order.
    #[serde(default)]
    pub responses: Vec<String>,
}

#[derive(Debug, Clone)]
enum BsmState {
    Branch,
    Solve {
        branches: Vec<String>,
        scores: Vec<Option<Result<f64, TagRatingError>>>,
        responses: Vec<String>,
    },
}

/// BSMEval: branch into at most five sub-tasks, score the assessment on each, merge by the
/// average.
#[derive(Debug, Clone)]
pub struct BsmEval {
    tag: String,
    text: String,
    assessment: String,
    policy: Policy,
    sampling: Sampling,
    state: BsmState,
}

impl BsmEval {
    /// Starts with the branch request.
    pub fn new(
        tag: &str,
        text: &str,
        assessment: &str,
        policy: Policy,
        sampling: Sampling,
    ) -> BsmEval {
        BsmEval {
            tag: tag.to_owned(),
            text: text.to_owned(),
            assessment: assessment.to_owned(),
            policy,
            sampling,
            state: BsmState::Branch,
        }
    }

    fn render(&self, template: &str, extra: (&str, &str)) -> String {
        single(template)
            .render(&[
                ("text", self.text.as_str()),
                ("eval_result", self.assessment.as_str()),
                extra,
            ])
            .unwrap_or_else(|_| template.to_owned())
    }
}

/// The items of a numbered or bulleted list, one per line (`1. x`, `2) y`, `- z`).
pub fn list_items(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter_map(|line| {
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            let rest = if digits > 0 {
                line[digits..].strip_prefix(['.', ')', ':'])?
            } else {
                line.strip_prefix(['-', '*', '•'])?
            };
            let item = rest.trim();
            (!item.is_empty()).then(|| item.to_owned())
        })
        .collect()
}

impl Protocol for BsmEval {
    type Outcome = BsmOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        match &self.state {
            BsmState::Branch => {
                let max = BSM_MAX_BRANCHES.to_string();
                let prompt = self.render(BSM_BRANCH, ("max_branches", &max));
                vec![
                    self.sampling
                        .request(format!("{}/branch", self.tag), vec![Message::user(prompt)]),
                ]
            }
            BsmState::Solve { branches, scores, .. } => branches
                .iter()
                .zip(scores)
                .enumerate()
                .filter(|(_, (_, s))| s.is_none())
                .map(|(i, (b, _))| {
                    let prompt = self.render(BSM_SOLVE, ("subtask", b));
                    self.sampling
                        .request(format!("{}/solve/{i}", self.tag), vec![Message::user(prompt)])
                })
                .collect(),
        }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        let unknown = || ProtocolError::UnknownTag { tag: tag.to_owned() };
        let text = first_text(tag, responses)?;
        match &mut self.state {
            BsmState::Branch => {
                if tag != format!("{}/branch", self.tag) {
                    return Err(unknown());
                }
                let mut branches = list_items(text);
                branches.truncate(BSM_MAX_BRANCHES);
                let scores = vec![None; branches.len()];
                let responses = vec![String::new(); branches.len()];
                self.state = BsmState::Solve { branches, scores, responses };
                Ok(())
            }
            BsmState::Solve { scores, responses: texts, .. } => {
                let prefix = format!("{}/solve/", self.tag);
                let i: usize =
                    tag.strip_prefix(&prefix).and_then(|s| s.parse().ok()).ok_or_else(unknown)?;
                let slot = scores.get_mut(i).filter(|s| s.is_none()).ok_or_else(unknown)?;
                *slot = Some(parse::rating_tag(text, "Score", self.policy, Some((1.0, 5.0))));
                if let Some(r) = texts.get_mut(i) {
                    *r = text.to_owned();
                }
                Ok(())
            }
        }
    }

    fn outcome(&self) -> Option<BsmOutcome> {
        let BsmState::Solve { branches, scores, responses } = &self.state else { return None };
        let scores: Option<Vec<Result<f64, TagRatingError>>> = scores.iter().cloned().collect();
        let scores = scores?;
        let ok: Vec<f64> = scores.iter().filter_map(|s| s.as_ref().ok().copied()).collect();
        let merged = (!ok.is_empty()).then(|| ok.iter().sum::<f64>() / ok.len() as f64);
        Some(BsmOutcome {
            branches: branches.clone(),
            scores,
            merged,
            responses: responses.clone(),
        })
    }
}
