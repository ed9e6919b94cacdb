//! One world's board drawn for all its frames at once, and where each of its
//! boxes changes: what the `Board` component binds its elements to.
//!
//! Every frame of a run draws the same elements (see `board::Layout`), so
//! the page makes the elements once per world and binds each attribute and
//! text to the frame on screen. A box (a child of one of the board's
//! parts: an instance, a message, a table row) that looks the same over a
//! stretch of frames is read from the first frame of that stretch, so a
//! seek that leaves a box as it was does not even ask it.

use crate::board::{self, Board, Layout};
use crate::markup::El;
use lousa_core::narrate::Lang;
use lousa_core::run::Run;

/// Every frame of a run drawn at one width, in one language.
#[derive(Debug, PartialEq, Eq)]
pub struct Drawn {
    pub frames: Vec<Board>,
    /// The height of the run's tallest frame: the drawing's height in every
    /// frame, so the board keeps one size through a run.
    pub tallest: i32,
    /// The width the frames are drawn for (see `board::Layout::width`).
    pub width: i32,
    /// `since[part][kid][frame]`: the first frame of the stretch, ending at
    /// `frame`, over which that box looks as it does at `frame`.
    since: Vec<Vec<Vec<u32>>>,
}

impl Drawn {
    pub fn new(run: &Run, width: i32, lang: Lang) -> Drawn {
        let (layout, frames) = board::frames(run, width, lang);
        let Layout { tallest, width, .. } = layout;
        let since = frames
            .first()
            .map(|first| {
                (0..first.parts.len())
                    .map(|part| {
                        (0..first.parts[part].kids.len())
                            .map(|kid| stretches(&frames, part, kid))
                            .collect()
                    })
                    .collect()
            })
            .unwrap_or_default();
        Drawn {
            frames,
            tallest,
            width,
            since,
        }
    }

    /// The last frame, which a frame past the end stands for: a binding of
    /// a world being replaced may still be asked about a longer run's frame.
    fn clamp(&self, frame: usize) -> usize {
        frame.min(self.frames.len().saturating_sub(1))
    }

    pub fn frame(&self, frame: usize) -> &Board {
        &self.frames[self.clamp(frame)]
    }

    /// The frame that box `kid` of `part` is read from at `frame`.
    pub fn since(&self, part: usize, kid: usize, frame: usize) -> usize {
        let frame = self.clamp(frame);
        self.since
            .get(part)
            .and_then(|kids| kids.get(kid))
            .map_or(frame, |stretch| stretch[frame] as usize)
    }

    /// How many parts, and how many boxes in a part, the board has.
    pub fn parts(&self) -> usize {
        self.frames[0].parts.len()
    }

    pub fn boxes(&self, part: usize) -> usize {
        self.frames[0].parts[part].kids.len()
    }

    /// Whether the box looks the same in every frame of the run.
    pub fn is_still(&self, part: usize, kid: usize) -> bool {
        self.since
            .get(part)
            .and_then(|kids| kids.get(kid))
            .is_some_and(|stretch| stretch.iter().all(|s| *s == 0))
    }

    /// The element at `path` below `part` (its first index picks the box),
    /// at `frame`.
    pub fn node(&self, part: usize, path: &[usize], frame: usize) -> &El {
        let mut at = &self.frame(frame).parts[part];
        for &i in path {
            at = &at.kids[i];
        }
        at
    }

    /// Whether attribute `name` of the element at `path` is the same in
    /// every frame (absent counts as a value).
    pub fn attr_is_still(&self, part: usize, path: &[usize], name: &str) -> bool {
        let first = attr(self.node(part, path, 0), name);
        (1..self.frames.len()).all(|f| attr(self.node(part, path, f), name) == first)
    }

    /// Whether the text of the element at `path` is the same in every frame.
    pub fn text_is_still(&self, part: usize, path: &[usize]) -> bool {
        let first = &self.node(part, path, 0).text;
        (1..self.frames.len()).all(|f| self.node(part, path, f).text == *first)
    }

    /// Every attribute name the element at `path` has in some frame, in the
    /// order they first appear.
    pub fn attr_names(&self, part: usize, path: &[usize]) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for f in 0..self.frames.len() {
            for (name, _) in &self.node(part, path, f).attrs {
                if !names.contains(name) {
                    names.push(name);
                }
            }
        }
        names
    }
}

/// The value of attribute `name` of `el`.
pub fn attr<'a>(el: &'a El, name: &str) -> Option<&'a str> {
    el.attrs
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_str())
}

/// For each frame, where the stretch of equal looks of one box began.
fn stretches(frames: &[Board], part: usize, kid: usize) -> Vec<u32> {
    let mut since = Vec::with_capacity(frames.len());
    for f in 0..frames.len() {
        let same = f > 0 && frames[f].parts[part].kids[kid] == frames[f - 1].parts[part].kids[kid];
        since.push(if same { since[f - 1] } else { f as u32 });
    }
    since
}

#[cfg(test)]
/// Whether two elements have the same shape: tags and children, all the way
/// down (attributes and text may differ).
pub fn same_shape(a: &El, b: &El) -> bool {
    a.tag == b.tag
        && a.kids.len() == b.kids.len()
        && a.kids.iter().zip(&b.kids).all(|(x, y)| same_shape(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::Strategy;
    use lousa_core::builtins::{NAMES, builtin};

    fn drawn(name: &str, strategy: Strategy, width: i32) -> (Run, Drawn) {
        let mut scenario = builtin(name).expect("built-in");
        scenario.strategy = strategy;
        let run = lousa_core::run(&scenario).expect("valid");
        let drawn = Drawn::new(&run, width, Lang::Pt);
        (run, drawn)
    }

    #[test]
    fn every_frame_of_every_builtin_has_the_shape_of_the_first() {
        // What binding the elements once per world relies on.
        for name in NAMES {
            for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
                let (_, d) = drawn(name, strategy, 560);
                let first = &d.frames[0];
                for (f, board) in d.frames.iter().enumerate() {
                    assert_eq!(board.parts.len(), first.parts.len());
                    for (a, b) in board.parts.iter().zip(&first.parts) {
                        assert!(same_shape(a, b), "{name} {strategy} frame {f}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_box_is_read_from_the_first_frame_of_its_stretch() {
        let (run, d) = drawn("timeout-retry", Strategy::CheckThenAct, 560);
        let mut changing = 0;
        for part in 0..d.frames[0].parts.len() {
            for kid in 0..d.frames[0].parts[part].kids.len() {
                for f in 0..run.frame_count() {
                    let from = d.since(part, kid, f);
                    assert!(from <= f);
                    assert_eq!(
                        d.frames[from].parts[part].kids[kid], d.frames[f].parts[part].kids[kid],
                        "part {part} box {kid} frame {f}"
                    );
                    if from > 0 {
                        assert_ne!(
                            d.frames[from - 1].parts[part].kids[kid],
                            d.frames[from].parts[part].kids[kid]
                        );
                    }
                }
                if !d.is_still(part, kid) {
                    changing += 1;
                }
            }
        }
        assert!(changing > 3, "the story moves several boxes: {changing}");
    }

    #[test]
    fn a_frame_past_the_end_reads_the_last() {
        let (run, d) = drawn("race-2", Strategy::CheckThenAct, 560);
        let last = run.frame_count() - 1;
        assert_eq!(d.frame(last + 50), &d.frames[last]);
        assert_eq!(d.since(0, 0, last + 50), d.since(0, 0, last));
        assert!(d.tallest > 0);
    }
}
