//! The lousa's picture: one frame of one run drawn as a tree of SVG elements.
//!
//! [`board`] is a pure function of (run, frame, width, language), which is
//! what makes the scroll-driven lousa trustworthy: however the reader got to
//! a frame (scrolling, a skipped scroll event, a reload, a link, the
//! keyboard) the same inputs draw the same picture. It reads only the frame
//! (and the one before, to mark what just changed); it never looks at how
//! the view got there.
//!
//! The layout is computed in CSS pixels for the width the board really has,
//! so text keeps its size from a 320 px phone to a wide screen.

use crate::label_place::{self, Obstacles, Span, Wanted};
use crate::markup::{El, el, short_key, wrap};
use crate::text::{Ui, charged_times, ui};
use crate::text_width;
use crate::words;
use lousa_core::narrate::{self, Lang};
use lousa_core::run::Run;
use lousa_core::store::{RowView, all_tables};
use lousa_core::trace::{
    Actor, ClientView, Frame, InstanceView, Knowledge, MessageKind, MessageView, TableView,
};
use lousa_core::view::{self, Answer, RowFacts};

const PAD: i32 = 6;
const LINE: i32 = 15;
const BIG_LINE: i32 = 30;
const ROW: i32 = 20;
const NOTE: i32 = 13;
/// Below this width the board drops table columns and tightens its gaps.
const NARROW_PX: i32 = 460;
/// A narrow board's gaps and acquirer: wide enough for "adquirente" and
/// "COBRANÇA" in bold.
const NARROW_GAP: i32 = 8;
const NARROW_ACQUIRER: i32 = 88;
/// The narrowest client, queue and instance boxes: they hold their longest
/// word ("tentativas:"; "processada" in bold; "instância 1" in bold and
/// "(ROLLBACK)"), which no wrap can break.
const CLIENT_MIN: i32 = 77;
const QUEUE_MIN: i32 = 89;
const INSTANCE_MIN: i32 = 86;
/// A box's text starts this far from its left edge and stops at least
/// [`TEXT_END`] from its right.
const TEXT_START: i32 = 7;
const TEXT_END: i32 = 5;

/// A drawn frame: the children of the `<svg>`, and its height in pixels.
///
/// The children are [`PARTS`] plain `<g>`s, always the same ones, so that
/// from one frame to the next each part's elements stay at the same place in
/// the tree and the page only rewrites the attributes and text that changed:
/// a step usually moves a message and changes an instance's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub parts: Vec<El>,
    pub height: i32,
}

/// Wires; clients and balancer; instances; acquirer; tables; messages.
pub const PARTS: usize = 6;

#[cfg(test)]
impl Board {
    pub fn part(&self, index: usize) -> String {
        self.parts[index].kids.iter().map(El::markup).collect()
    }

    pub fn markup(&self) -> String {
        (0..PARTS).map(|i| self.part(i)).collect()
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Rect {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
}

impl Rect {
    fn left_mid(self) -> (i32, i32) {
        (self.x, self.y + self.h / 2)
    }
    fn right_mid(self) -> (i32, i32) {
        (self.x + self.w, self.y + self.h / 2)
    }
    fn bottom_mid(self) -> (i32, i32) {
        (self.x + self.w / 2, self.y + self.h)
    }
}

/// One line of text in an actor's box.
struct Line {
    text: String,
    class: &'static str,
    height: i32,
}

fn line(text: impl Into<String>, class: &'static str) -> Line {
    Line {
        text: text.into(),
        class,
        height: LINE,
    }
}

/// An actor's box before it is placed: its text, and what its element says
/// about it to tests and assistive technology.
struct Block {
    lines: Vec<Line>,
    class: String,
    testid: String,
    label: String,
    data: Vec<(&'static str, String)>,
}

impl Block {
    fn height(&self) -> i32 {
        10 + self.lines.iter().map(|l| l.height).sum::<i32>()
    }
}

/// Whether the stylesheet draws a line of this class in bold (style.css's
/// `.lz .board` rules).
fn bold(class: &str) -> bool {
    class.split(' ').any(|c| {
        matches!(
            c,
            "title" | "status" | "k-unknown" | "k-refused" | "wait" | "down" | "alarm"
        )
    })
}

/// How wide a box must be to hold `text` on one line in a line of
/// `class`: the text and its margins.
fn box_for(text: &str, class: &str) -> i32 {
    TEXT_START + text_width::px(text, bold(class)) + TEXT_END
}

/// Adds `text` wrapped to the box width, one [`Line`] per row.
fn wrapped(lines: &mut Vec<Line>, text: &str, width: i32, class: &'static str) {
    let room = width - TEXT_START - TEXT_END;
    lines.extend(
        wrap(text, room, bold(class))
            .into_iter()
            .map(|t| line(t, class)),
    );
}

/// The four columns of actors, left to right, in pixels.
struct Columns {
    client: (i32, i32),
    balancer: (i32, i32),
    instance: (i32, i32),
    acquirer: (i32, i32),
    gap: i32,
}

impl Columns {
    fn new(width: i32, queues: bool) -> Columns {
        let (gap, client, balancer, instance, acquirer) = if width < NARROW_PX {
            // A phone: the balancer is a tag and the acquirer holds short
            // words, so the width goes to the clients and instances, whose
            // lines wrap and make the board tall.
            let (gap, balancer, acquirer) = (NARROW_GAP, tag_width(queues), NARROW_ACQUIRER);
            let rest = width - 2 * PAD - 3 * gap - balancer - acquirer;
            let client = (rest * 2 / 5)
                .max(client_min(queues))
                .min(rest - INSTANCE_MIN);
            (gap, client, balancer, rest - client, acquirer)
        } else {
            let gap = (width / 20).clamp(16, 40);
            let inner = width - 2 * PAD - 3 * gap;
            let client = inner * 24 / 100;
            let balancer = inner * 13 / 100;
            let instance = inner * 35 / 100;
            (
                gap,
                client,
                balancer,
                instance,
                inner - client - balancer - instance,
            )
        };
        let x1 = PAD + client + gap;
        let x2 = x1 + balancer + gap;
        let x3 = x2 + instance + gap;
        Columns {
            client: (PAD, client),
            balancer: (x1, balancer),
            instance: (x2, instance),
            acquirer: (x3, acquirer),
            gap,
        }
    }
}

/// What the box between the clients and the instances is called: where
/// every client is a queue, the queue hands its deliveries to the consumers
/// itself, and the box names who takes them. A column too narrow for each
/// word of the name gets the short one.
fn balancer_name(queues: bool, column: i32, lang: Lang) -> &'static str {
    let (long, short) = match (queues, lang) {
        (false, _) => ("load balancer", "LB"),
        (true, Lang::Pt) => ("consumidores", "cons."),
        (true, Lang::En) => ("consumers", "cons."),
    };
    let fits = |word| box_for(word, "title") <= column;
    if long.split(' ').all(fits) {
        long
    } else {
        short
    }
}

/// A narrow board's narrowest client column: a queue's words are longer.
fn client_min(queues: bool) -> i32 {
    if queues { QUEUE_MIN } else { CLIENT_MIN }
}

/// A narrow board's balancer: a tag just wide enough for its short name.
fn tag_width(queues: bool) -> i32 {
    let short = balancer_name(queues, 0, Lang::En);
    box_for(short, "title")
}

/// The narrowest board whose words all fit their boxes (about a 320 px
/// phone's box): [`layout`], [`board`] and [`frames`] draw a narrower one
/// at this width, and the page's SVG scales it down to its box.
pub fn narrowest(run: &Run) -> i32 {
    let queues = all_queues(run.state_at(0));
    2 * PAD
        + 3 * NARROW_GAP
        + tag_width(queues)
        + NARROW_ACQUIRER
        + client_min(queues)
        + INSTANCE_MIN
}

/// Whether every client of the world is a queue.
fn all_queues(state: &Frame) -> bool {
    !state.clients.is_empty() && state.clients.iter().all(|c| c.queue)
}

fn knowledge_kind(knowledge: &Knowledge) -> (&'static str, &'static str) {
    match knowledge {
        Knowledge::Idle => ("idle", "k-idle"),
        Knowledge::Waiting { .. } => ("waiting", "k-waiting"),
        Knowledge::Unknown { .. } => ("unknown", "k-unknown"),
        Knowledge::Backoff => ("backoff", "k-waiting"),
        Knowledge::Answered { status, .. } => (
            "answered",
            match status {
                200..=299 => "k-ok",
                409 => "k-conflict",
                _ => "k-refused",
            },
        ),
        Knowledge::GaveUp => ("gave-up", "k-refused"),
    }
}

fn client_block(
    index: usize,
    client: &ClientView,
    before: Option<&ClientView>,
    heard: Option<&Answer>,
    width: i32,
    lang: Lang,
    t: &Ui,
) -> Block {
    let (kind, class) = knowledge_kind(&client.knowledge);
    let knows = if client.queue {
        narrate::queue_knowledge(&client.knowledge, lang)
    } else {
        narrate::knowledge(&client.knowledge, lang)
    };
    // A queue hears an ack or a nack, not a status.
    let said = |status: u16| {
        if client.queue {
            narrate::ack_word(status).to_string()
        } else {
            status.to_string()
        }
    };
    let who = if client.queue {
        Actor::Queue(index as u32)
    } else {
        Actor::Client(index as u32)
    };
    let title = narrate::actor(who, lang);
    let mut lines = vec![line(title.clone(), "title")];
    wrapped(&mut lines, &knows, width, class);
    // What it knows now may be "waiting to retry": the answer that sent it
    // there (a 409, say) stays on the board.
    let mut status = match client.knowledge {
        Knowledge::Answered { status, .. } => Some(status),
        _ => None,
    };
    if let (Some(answer), None) = (heard, status) {
        let (_, heard_class) = knowledge_kind(&Knowledge::Answered {
            attempt: answer.attempt,
            status: answer.status,
        });
        let text = if answer.late {
            format!("{}: {} ({})", t.last_answer, said(answer.status), t.late)
        } else {
            status = Some(answer.status);
            format!("{}: {}", t.last_answer, said(answer.status))
        };
        wrapped(
            &mut lines,
            &text,
            width,
            if answer.late { "dim" } else { heard_class },
        );
    }
    wrapped(
        &mut lines,
        &format!("{}: {}", t.attempts, client.attempts_sent),
        width,
        "dim",
    );
    let changed = before.is_some_and(|b| b.knowledge != client.knowledge);
    Block {
        lines,
        class: format!("actor client{}", changed_mark(changed)),
        testid: format!("client-{index}"),
        label: format!("{title}: {knows}"),
        data: match status {
            Some(s) => vec![
                ("data-knowledge", kind.to_string()),
                ("data-status", s.to_string()),
            ],
            None => vec![("data-knowledge", kind.to_string())],
        },
    }
}

fn instance_block(
    index: usize,
    instance: &InstanceView,
    now_ms: u64,
    width: i32,
    lang: Lang,
    t: &Ui,
) -> Block {
    let title = narrate::actor(Actor::Instance(index as u32), lang);
    let mut lines = Vec::new();
    let mut class = String::from("actor instance");
    if instance.alive {
        lines.push(line(title.clone(), "title"));
    } else {
        // One line where it fits; else the name whole, then what it is, so
        // that a narrow box does not break "instância 1" across two lines.
        let whole = format!("{title}: {}", t.down);
        if box_for(&whole, "title down") <= width {
            lines.push(line(whole, "title down"));
        } else {
            lines.push(line(title.clone(), "title down"));
            wrapped(&mut lines, t.down, width, "title down");
        }
        class.push_str(" is-down");
    }
    let mut data = Vec::new();
    if instance.jobs.is_empty() && instance.alive {
        lines.push(line(t.idle, "dim"));
    }
    // A pool too small for its held transactions: how many wait for it,
    // in the order they will get a connection. A job waiting there has
    // not begun, so it gets no line of its own: with a dozen queued, one
    // line each would make the box taller than the board.
    if !instance.connection_queue.is_empty() {
        let order: Vec<String> = instance
            .connection_queue
            .iter()
            .map(|attempt| format!("#{}", attempt + 1))
            .collect();
        let text = format!(
            "pool: {} {} · {} {}: {}",
            instance.connections_free,
            t.pool_free,
            instance.connection_queue.len(),
            t.pool_queued,
            order.join(" ")
        );
        wrapped(&mut lines, &text, width, "wait");
        class.push_str(" is-queued");
        data.push((
            "data-pool-queue",
            instance.connection_queue.len().to_string(),
        ));
    }
    for job in &instance.jobs {
        if instance.connection_queue.contains(&job.attempt) {
            continue;
        }
        let step = view::step_label(&job.step, lang);
        wrapped(
            &mut lines,
            &format!("#{} {step}", job.attempt + 1),
            width,
            "job",
        );
        if let Some(holder) = job.waiting_on_instance {
            let waited = job
                .waiting_since_ms
                .map_or(0, |since| now_ms.saturating_sub(since));
            let text = format!("{} {} · {waited} ms", t.waits_for, holder + 1);
            wrapped(&mut lines, &text, width, "wait");
            class.push_str(" is-waiting");
            data.push(("data-waiting-on", holder.to_string()));
        } else if job.in_transaction {
            wrapped(&mut lines, t.open_transaction, width, "tx");
        } else if job.holds_connection {
            wrapped(&mut lines, t.connection, width, "dim");
        }
    }
    if let Some(job) = instance.jobs.first() {
        data.push(("data-job-step", job.step.to_string()));
    }
    let label = lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Block {
        lines,
        class,
        testid: format!("instance-{index}"),
        label,
        data,
    }
}

/// The acquirer's box; `counted` names what its number counts
/// ([`words::charges_word`]).
fn acquirer_block(
    state: &Frame,
    before: &Frame,
    counted: &'static str,
    width: i32,
    lang: Lang,
    t: &Ui,
) -> Block {
    let captures: u32 = state.captures.iter().sum();
    let double = view::is_double_charge(state);
    // The intent charged most: its count names the alarm.
    let most = state.captures.iter().copied().max().unwrap_or(0);
    let alarm = double.then(|| charged_times(lang, most));
    let money = narrate::amount(state.charged_cents, lang);
    let mut lines = vec![
        line(t.acquirer, "title"),
        Line {
            text: captures.to_string(),
            class: "big",
            height: BIG_LINE,
        },
    ];
    wrapped(&mut lines, counted, width, "dim");
    lines.push(line(money.clone(), "money"));
    if let Some(alarm) = &alarm {
        wrapped(&mut lines, alarm, width, "alarm");
    }
    let changed = before.captures.iter().sum::<u32>() != captures;
    Block {
        lines,
        class: format!(
            "actor acquirer{}{}",
            if double { " is-double" } else { "" },
            changed_mark(changed)
        ),
        testid: "acquirer".into(),
        label: format!(
            "{}: {captures} {}, {} {money}{}",
            t.acquirer,
            counted,
            t.charged,
            alarm.map_or_else(String::new, |alarm| format!(", {alarm}"))
        ),
        data: vec![
            ("data-captures", captures.to_string()),
            ("data-charged-cents", state.charged_cents.to_string()),
            ("data-double", double.to_string()),
        ],
    }
}

fn changed_mark(changed: bool) -> &'static str {
    if changed { " changed" } else { "" }
}

/// Stacks slots of these heights in a column, centred vertically in `area`
/// pixels from `top`.
fn stack(heights: &[i32], x: i32, w: i32, top: i32, area: i32, gap: i32) -> Vec<Rect> {
    let total: i32 = heights.iter().sum::<i32>() + gap * (heights.len() as i32 - 1).max(0);
    let mut y = top + (area - total).max(0) / 2;
    heights
        .iter()
        .map(|&h| {
            let rect = Rect { x, y, w, h };
            y += h + gap;
            rect
        })
        .collect()
}

/// A box and its lines, drawn relative to the box's corner: when another
/// column grows and the box moves, only its group's transform changes. The
/// box always holds `lines` lines (its most over the run), the unused ones
/// empty: a line that comes or goes then changes a text, where a new
/// element would cost the browser a style and a layout of its own.
fn draw_block(parent: &mut El, block: &Block, at: Rect, lines: usize) {
    let g = parent.group(&block.testid, &block.class, &block.label);
    for (name, value) in &block.data {
        g.attr(name, value);
    }
    g.shift(at.x, at.y).rect(0, 0, at.w, at.h, "box");
    let mut y = FIRST_BASELINE;
    for (l, baseline) in baselines(block) {
        let x = if l.class == "big" {
            at.w / 2
        } else {
            TEXT_START
        };
        g.label(x, baseline, l.class, &l.text);
        y = baseline;
    }
    for _ in block.lines.len()..lines {
        y += LINE;
        g.label(TEXT_START, y, "dim", "");
    }
}

/// A box's first line sits this far below its top, less the line's height.
const FIRST_BASELINE: i32 = 1;

/// Each of a block's lines with its baseline, from the box's top.
fn baselines(block: &Block) -> impl Iterator<Item = (&Line, i32)> {
    block.lines.iter().scan(FIRST_BASELINE, |y, l| {
        *y += l.height;
        Some((l, *y))
    })
}

/// An element kept for a frame that needs it: hidden, it costs the browser
/// no new element when it comes back (see `Layout`).
fn spare<'a>(parent: &'a mut El, tag: &'static str) -> &'a mut El {
    parent.add(tag).attr("visibility", "hidden")
}

/// Where a message is drawn: the wire it travels along, in order.
fn route(
    message: &MessageView,
    clients: &[Rect],
    balancer: Rect,
    instances: &[Rect],
    acquirer: Rect,
) -> Option<Vec<(i32, i32)>> {
    let client = |c: u32| clients.get(c as usize).copied();
    let instance = |i: u32| instances.get(i as usize).copied();
    Some(match (message.kind, message.from, message.to) {
        (MessageKind::Request, Actor::Client(c), _) => {
            vec![client(c)?.right_mid(), balancer.left_mid()]
        }
        (MessageKind::Response, Actor::Instance(i), Actor::Client(c)) => vec![
            instance(i)?.left_mid(),
            balancer.right_mid(),
            balancer.left_mid(),
            client(c)?.right_mid(),
        ],
        (MessageKind::Response, _, Actor::Client(c)) => {
            vec![balancer.left_mid(), client(c)?.right_mid()]
        }
        (MessageKind::Capture, Actor::Instance(i), _) => {
            vec![instance(i)?.right_mid(), acquirer.left_mid()]
        }
        (MessageKind::CaptureReply, _, Actor::Instance(i)) => {
            vec![acquirer.left_mid(), instance(i)?.right_mid()]
        }
        _ => return None,
    })
}

/// The point `permille`/1000 of the way along a polyline.
fn along(points: &[(i32, i32)], permille: i64) -> (i32, i32) {
    // A float square root is one wasm instruction, where `isqrt` is a loop
    // and a panic; below 2^52 both give the same whole pixels.
    let length = |a: (i32, i32), b: (i32, i32)| {
        let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        (dx * dx + dy * dy).sqrt() as i64
    };
    let total: i64 = points.windows(2).map(|w| length(w[0], w[1])).sum();
    let mut remaining = total * permille.clamp(0, 1000) / 1000;
    for w in points.windows(2) {
        let segment = length(w[0], w[1]);
        if remaining <= segment && segment > 0 {
            let lerp = |a: i32, b: i32| a + ((i64::from(b - a) * remaining) / segment) as i32;
            return (lerp(w[0].0, w[1].0), lerp(w[0].1, w[1].1));
        }
        remaining -= segment;
    }
    points.last().copied().unwrap_or_default()
}

/// Which side of its dot a message's label would rather go: away from the
/// box at the nearer end of its route. A message that has just left a box,
/// or is about to reach one, sits on that box's border, and a label on the
/// box's side would be drawn across it.
fn label_goes_right(points: &[(i32, i32)], permille: i64) -> bool {
    let (end, next) = match points {
        [first, second, ..] if permille < 500 => (*first, *second),
        [.., before, last] => (*last, *before),
        _ => return true,
    };
    next.0 >= end.0
}

/// The words a box's lines cover, as [`draw_block`] draws them.
fn words_of(block: &Block, at: Rect, out: &mut Vec<Span>) {
    for (l, baseline) in baselines(block) {
        let baseline = at.y + baseline;
        if l.class == "big" {
            // 26 px bold, centred: about twice the 12 px width.
            let w = 2 * text_width::px(&l.text, true) + 2;
            out.push(Span::new(at.x + (at.w - w) / 2, baseline - 20, w, 22));
        } else if !l.text.is_empty() {
            let w = text_width::px(&l.text, bold(l.class));
            out.push(Span::new(at.x + TEXT_START, baseline - 10, w, 13));
        }
    }
}

fn span(rect: Rect) -> Span {
    Span::new(rect.x, rect.y, rect.w, rect.h)
}

/// The empty label of a dot with none of its own.
fn unlabelled(dot: &mut El) {
    dot.label(-8, -9, "msg-label", "")
        .attr("text-anchor", "end");
}

fn draw_messages(
    part: &mut El,
    state: &Frame,
    routes: impl Fn(&MessageView) -> Option<Vec<(i32, i32)>>,
    slots: usize,
    obstacles: &Obstacles,
    t: &Ui,
) {
    // The group stays when nothing is in flight ("… on the way: 0"):
    // adding and removing it as messages come and go would make the
    // browser style and lay out new elements on almost every other step.
    let kinds: Vec<String> = state
        .in_flight
        .iter()
        .map(|m| format!("{} #{}", t.message_kinds[m.kind as usize], m.attempt + 1))
        .collect();
    let list = if kinds.is_empty() {
        "0".to_string()
    } else {
        kinds.join(", ")
    };
    let summary = format!("{}: {list}", t.in_flight);
    let g = part
        .group("messages", "messages", &summary)
        .num("data-count", state.in_flight.len() as i64);
    // Each drawn dot: where it is, its class, and the label it leads (the
    // index into `labels`) or None when it shares the label of a dot at
    // the same spot (two captures reaching the acquirer together).
    let mut dots: Vec<((i32, i32), &'static str, Option<usize>)> = Vec::new();
    // Each label: its dot, the side it would rather go, its attempts.
    let mut labels: Vec<((i32, i32), bool, Vec<u32>)> = Vec::new();
    for message in &state.in_flight {
        let Some(points) = routes(message) else {
            continue;
        };
        let span = message.arrives_ms.saturating_sub(message.sent_ms).max(1);
        let permille = (state.time_ms.saturating_sub(message.sent_ms) * 1000 / span) as i64;
        let (x, y) = along(&points, permille);
        let class = match message.kind {
            MessageKind::Request => "msg req",
            MessageKind::Response => "msg resp",
            MessageKind::Capture => "msg cap",
            MessageKind::CaptureReply => "msg reply",
        };
        let near = labels
            .iter_mut()
            .find(|((x0, y0), _, _)| (x - *x0).abs() < 12 && (y - *y0).abs() < 12);
        if let Some((_, _, attempts)) = near {
            attempts.push(message.attempt);
            dots.push(((x, y), class, None));
        } else {
            dots.push(((x, y), class, Some(labels.len())));
            labels.push((
                (x, y),
                label_goes_right(&points, permille),
                vec![message.attempt],
            ));
        }
    }
    let texts: Vec<String> = labels
        .iter()
        .map(|(_, _, a)| label_place::numbers(a))
        .collect();
    let wanted: Vec<Wanted> = labels
        .iter()
        .zip(&texts)
        .map(|((dot, right, _), text)| Wanted {
            dot: *dot,
            width: label_place::width(text),
            right: *right,
        })
        .collect();
    let at: Vec<(i32, i32)> = dots.iter().map(|d| d.0).collect();
    let spots = label_place::place(&wanted, &at, obstacles);
    for ((x, y), class, label) in dots {
        let dot = g.add("g").shift(x, y).class(class);
        dot.add("circle").attr("r", "6");
        match label {
            Some(i) => {
                let spot = spots[i];
                dot.label(spot.dx, spot.dy, "msg-label", &texts[i])
                    .attr("text-anchor", spot.anchor.attr());
            }
            // A dot that shares another's label keeps an empty one where
            // a spare's is: a seek then rewrites nothing of it.
            None => unlabelled(dot),
        }
    }
    while g.kids.len() < slots {
        let dot = spare(g, "g").class("msg");
        dot.add("circle").attr("r", "6");
        unlabelled(dot);
    }
}

#[derive(Clone, Copy)]
enum Column {
    Id,
    Key,
    Order,
    Amount,
    Status,
    Http,
}

fn cell(column: Column, facts: &RowFacts, lang: Lang) -> String {
    let int = |v: Option<i64>| v.map_or_else(|| "—".to_string(), |v| v.to_string());
    match column {
        Column::Id => int(facts.id),
        Column::Key => facts.key.as_deref().map_or_else(|| "—".into(), short_key),
        Column::Order => int(facts.order_id),
        Column::Amount => facts
            .amount_cents
            .map_or_else(|| "—".into(), |c| narrate::amount(c, lang)),
        // An outbox row's state is the page's word, not a value in SQL as
        // PROCESSANDO is, so it is said in the reader's language.
        Column::Status => match facts.status.as_deref() {
            None => "—".into(),
            Some("pendente") => lang.pick("pendente", "pending").into(),
            Some("publicado") => lang.pick("publicado", "published").into(),
            Some(other) => other.into(),
        },
        Column::Http => int(facts.http_status),
    }
}

fn status_class(status: Option<&str>) -> &'static str {
    match status {
        Some("PROCESSANDO" | "processing") => "s-pending",
        Some("CAPTURADA" | "completed") => "s-done",
        Some("RECUSADA" | "failed_safe") => "s-refused",
        Some("unknown" | "escalated") => "s-unknown",
        _ => "s-other",
    }
}

/// "UNIQUE (idempotency_key)" or "no UNIQUE": what can refuse a second write.
fn constraint_note(table: &str, t: &Ui) -> String {
    let uniques: Vec<String> = all_tables()
        .into_iter()
        .filter(|def| def.name == table)
        .flat_map(|def| def.uniques)
        .map(|u| format!("UNIQUE ({})", u.columns.join(", ")))
        .collect();
    if uniques.is_empty() {
        t.no_unique.to_string()
    } else {
        uniques.join(", ")
    }
}

/// Draws the tables into `part`; returns the bottom edge and where each
/// instance's row of interest sits (for the waiting arrows).
#[allow(clippy::too_many_arguments)]
fn draw_tables(
    part: &mut El,
    run: &Run,
    frame: usize,
    state: &Frame,
    top: i32,
    width: i32,
    rows: &[usize],
    lang: Lang,
    t: &Ui,
) -> (i32, Vec<(u32, i32)>) {
    let narrow = width < NARROW_PX;
    let columns: &[(Column, i32)] = if narrow {
        &[
            (Column::Id, 12),
            (Column::Amount, 28),
            (Column::Status, 42),
            (Column::Http, 18),
        ]
    } else {
        &[
            (Column::Id, 7),
            (Column::Key, 22),
            (Column::Order, 12),
            (Column::Amount, 18),
            (Column::Status, 28),
            (Column::Http, 13),
        ]
    };
    let table_width = width - 2 * PAD;
    let mut y = top;
    let mut held_rows = Vec::new();
    for (table_index, table) in state.tables.iter().enumerate() {
        let caption = caption(&table.name, width, t);
        let summary = caption.join(" · ");
        // The table and each row are drawn from their own top edge, so that
        // a table or a row pushed down by others only changes its transform.
        let origin = y;
        let g = part
            .group(
                if table_index == 0 {
                    "database"
                } else {
                    "database-more"
                },
                "database",
                &summary,
            )
            .attr("data-table", &table.name)
            .num("data-rows", table.rows.len() as i64)
            .shift(0, origin);
        for (i, text) in caption.iter().enumerate() {
            y += LINE;
            g.label(PAD, y - origin, if i == 0 { "title" } else { "dim" }, text);
        }
        y += 6;
        let mut x = PAD;
        let header = y - origin + LINE - 2;
        for &(column, pct) in columns {
            g.label(x + 4, header, "th", t.columns[column as usize]);
            x += table_width * pct / 100;
        }
        y += LINE + 2;
        // The empty table's line is there, blank, when the table has rows.
        let empty = if table.rows.is_empty() {
            t.empty_table
        } else {
            ""
        };
        g.label(PAD + 4, y - origin + LINE - 2, "dim", empty);
        if table.rows.is_empty() {
            y += ROW;
        }
        for row_index in by_id(table) {
            let row = &table.rows[row_index];
            let (drawn, height, facts) = draw_table_row(
                g,
                run,
                table,
                row,
                y - origin,
                table_width,
                columns,
                lang,
                t,
            );
            mark_row(drawn, &facts, row);
            for session in [row.uncommitted_by, row.locked_by].into_iter().flatten() {
                if let Some(instance) = view::session_instance(run, session.0) {
                    held_rows.push((instance, y));
                }
            }
            y += height;
        }
        // Spare rows, up to the most this table has in the run, hidden and
        // without test ids. Each is drawn as the row its slot holds next
        // will first look (blank if none comes): when that row appears, only
        // its visibility and data attributes change, not its texts.
        // (The first row takes the empty table's line.)
        let mut spare_y = if table.rows.is_empty() { y - ROW } else { y };
        for slot in table.rows.len()..rows.get(table_index).copied().unwrap_or(0) {
            let next = (frame + 1..run.frame_count()).find_map(|f| {
                let later = run.state_at(f).tables.get(table_index)?;
                let at = *by_id(later).get(slot)?;
                Some((later, &later.rows[at]))
            });
            let drawn = match next {
                Some((later, row)) => {
                    let (drawn, _, _) = draw_table_row(
                        g,
                        run,
                        later,
                        row,
                        spare_y - origin,
                        table_width,
                        columns,
                        lang,
                        t,
                    );
                    drawn
                }
                None => draw_row(g, spare_y - origin, table_width, ROW, columns, &[], |_| {
                    String::new()
                })
                .class("row"),
            };
            drawn.attr("visibility", "hidden");
            spare_y += ROW;
        }
        y += 8;
    }
    (y, held_rows)
}

/// Draws `row` of `table` at `y` in its table, with what it holds, its
/// status and its notes; returns it, its height and what it holds. What
/// it looks like only: a shown row also gets [`mark_row`], a spare one
/// does not.
#[allow(clippy::too_many_arguments)]
fn draw_table_row<'a>(
    g: &'a mut El,
    run: &Run,
    table: &TableView,
    row: &RowView,
    y: i32,
    table_width: i32,
    columns: &[(Column, i32)],
    lang: Lang,
    t: &Ui,
) -> (&'a mut El, i32, RowFacts) {
    let facts = view::row_facts(table, &row.values);
    let notes = row_notes(run, row, lang, t);
    let height = ROW + NOTE * notes.len() as i32;
    let mut class = format!("row {}", status_class(facts.status.as_deref()));
    if row.uncommitted_by.is_some() {
        class.push_str(" uncommitted");
    }
    let drawn = draw_row(g, y, table_width, height, columns, &notes, |column| {
        cell(column, &facts, lang)
    });
    drawn.class(&class);
    (drawn, height, facts)
}

/// The test id and data attributes of a shown row: what it holds, as the
/// tests and assistive readers of the markup see it.
fn mark_row(drawn: &mut El, facts: &RowFacts, row: &RowView) {
    drawn
        .attr("data-testid", "row")
        .attr("data-status", facts.status.as_deref().unwrap_or(""))
        .attr(
            "data-http",
            &facts.http_status.map_or(String::new(), |h| h.to_string()),
        )
        .attr(
            "data-committed",
            if row.uncommitted_by.is_some() {
                "false"
            } else {
                "true"
            },
        );
}

/// A table row `height` pixels tall at `y` in its table: its box, a cell
/// per column with the text `cell` gives, and `MAX_NOTES` note lines, the
/// first ones `notes`, the others blank.
fn draw_row<'a>(
    g: &'a mut El,
    y: i32,
    table_width: i32,
    height: i32,
    columns: &[(Column, i32)],
    notes: &[String],
    cell: impl Fn(Column) -> String,
) -> &'a mut El {
    let drawn = g.add("g").shift(0, y);
    drawn.rect(PAD, 0, table_width, height - 2, "row-box");
    let mut x = PAD;
    for &(column, pct) in columns {
        let class = if matches!(column, Column::Status) {
            "cell status"
        } else {
            "cell"
        };
        drawn.label(x + 4, ROW - 6, class, &cell(column));
        x += table_width * pct / 100;
    }
    for i in 0..MAX_NOTES {
        let note = notes.get(i).map_or("", String::as_str);
        drawn.label(PAD + 4, ROW - 4 + NOTE * (i as i32 + 1) - 2, "note", note);
    }
    drawn
}

/// Row indexes in the order of their ids. The store lists a row where its
/// latest version was written, so an update would move it down the table.
fn by_id(table: &TableView) -> Vec<usize> {
    let id = |i: usize| {
        view::row_facts(table, &table.rows[i].values)
            .id
            .unwrap_or(i64::MAX)
    };
    let mut order: Vec<usize> = (0..table.rows.len()).collect();
    order.sort_by_key(|&i| (id(i), i));
    order
}

/// The most notes [`row_notes`] writes under a row: every row has room for
/// them, so that a note that comes or goes changes a text, not an element.
const MAX_NOTES: usize = 2;

/// How many notes [`row_notes`] writes under a row.
fn note_count(row: &RowView) -> i32 {
    let locked = row.locked_by.is_some_and(|s| Some(s) != row.uncommitted_by);
    i32::from(row.uncommitted_by.is_some()) + i32::from(locked)
}

/// A table's name and its UNIQUE constraints (or their absence): one line,
/// or two where one would not fit the board.
fn caption(table: &str, width: i32, t: &Ui) -> Vec<String> {
    let name = format!("{} · {} {table}", t.database, t.table);
    let constraint = constraint_note(table, t);
    let one = format!("{name} · {constraint}");
    // One line is drawn bold whole.
    if text_width::px(&one, true) <= width - 2 * PAD {
        vec![one]
    } else {
        vec![name, constraint]
    }
}

/// The height [`draw_tables`] gives the tables, without drawing them.
fn tables_height(state: &Frame, width: i32, t: &Ui) -> i32 {
    let table = |table: &TableView| -> i32 {
        let header = LINE * caption(&table.name, width, t).len() as i32 + 6 + LINE + 2;
        let rows = if table.rows.is_empty() {
            ROW
        } else {
            table.rows.iter().map(|r| ROW + NOTE * note_count(r)).sum()
        };
        header + rows + 8
    };
    state.tables.iter().map(table).sum()
}

/// "uncommitted · instance 1", "locked · instance 2": who holds the row.
fn row_notes(run: &Run, row: &RowView, lang: Lang, t: &Ui) -> Vec<String> {
    let holder = |session: lousa_core::store::SessionId| {
        view::session_instance(run, session.0).map_or_else(String::new, |i| {
            format!(" · {}", narrate::actor(Actor::Instance(i), lang))
        })
    };
    let mut notes = Vec::new();
    if let Some(session) = row.uncommitted_by {
        notes.push(format!("{}{}", t.uncommitted, holder(session)));
    }
    if let Some(session) = row.locked_by.filter(|s| Some(*s) != row.uncommitted_by) {
        notes.push(format!("{}{}", t.locked, holder(session)));
    }
    notes
}

/// The actors' boxes of one frame, before they are placed: what decides
/// the height of the top of the board.
struct Actors {
    clients: Vec<Block>,
    instances: Vec<Block>,
    acquirer: Block,
    balancer: Block,
    columns: Columns,
}

const GAP: i32 = 8;

fn column_height(heights: &[i32]) -> i32 {
    heights.iter().sum::<i32>() + GAP * (heights.len() as i32 - 1).max(0)
}

fn actors(run: &Run, frame: usize, width: i32, lang: Lang) -> Actors {
    let t = ui(lang);
    let state = run.state_at(frame);
    let before = run.state_at(frame.saturating_sub(1));
    let queues = all_queues(state);
    let columns = Columns::new(width, queues);

    let ledger = view::ledger_at(run, frame);
    let last_heard = |client: usize| {
        let on_time = ledger
            .answers
            .iter()
            .rev()
            .find(|a| a.client as usize == client && !a.late);
        on_time.or_else(|| {
            ledger
                .answers
                .iter()
                .rev()
                .find(|a| a.client as usize == client)
        })
    };
    let clients: Vec<Block> = state
        .clients
        .iter()
        .enumerate()
        .map(|(i, c)| {
            client_block(
                i,
                c,
                before.clients.get(i),
                last_heard(i),
                columns.client.1,
                lang,
                t,
            )
        })
        .collect();
    let instances: Vec<Block> = state
        .instances
        .iter()
        .enumerate()
        .map(|(i, inst)| instance_block(i, inst, state.time_ms, columns.instance.1, lang, t))
        .collect();
    let counted = words::charges_word(run, t);
    let acquirer = acquirer_block(state, before, counted, columns.acquirer.1, lang, t);
    let mut balancer_lines = Vec::new();
    wrapped(
        &mut balancer_lines,
        balancer_name(queues, columns.balancer.1, lang),
        columns.balancer.1,
        "title",
    );
    let balancer = Block {
        lines: balancer_lines,
        class: "actor balancer".into(),
        testid: "load-balancer".into(),
        label: balancer_name(queues, i32::MAX, lang).into(),
        data: Vec::new(),
    };
    Actors {
        clients,
        instances,
        acquirer,
        balancer,
        columns,
    }
}

/// Each actor's slot on the board, sized for its tallest box over the whole
/// run: boxes keep their size and place from frame to frame, so a box that
/// grows moves nothing else, the reader's eye stays put, and a seek rewrites
/// no position. Measured without drawing, once per world and width.
///
/// It also counts the most of everything that comes and goes in a run
/// (lines in a box, messages in flight, rows in a table), and every frame
/// draws that many, the unused ones hidden or empty. Every frame of a run
/// then has the same elements, and a seek only rewrites attributes and
/// text: a new element costs the browser far more (issue #6).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    clients: Vec<i32>,
    instances: Vec<i32>,
    acquirer: i32,
    client_lines: Vec<usize>,
    instance_lines: Vec<usize>,
    acquirer_lines: usize,
    in_flight: usize,
    /// The most rows of each table.
    rows: Vec<usize>,
    /// The height of the tallest column.
    area: i32,
    /// The height of the run's tallest frame. Beside the text the drawing
    /// keeps this size through a run, so that its viewBox never changes (see
    /// `components::Board`).
    pub tallest: i32,
    /// The width the frames are drawn for: the width asked for, or the
    /// world's [`narrowest`] where that is wider.
    pub width: i32,
}

/// The layout [`frames`] draws `run` in, alone: what a view that draws
/// only the frame on screen sizes its board by.
pub fn layout(run: &Run, width: i32, lang: Lang) -> Layout {
    layout_through(run, run.frame_count() - 1, width, lang)
}

/// [`layout`] over the frames up to `last` only: a view that shows no
/// frame past it sizes the board by those, at a cost that grows with
/// them, not with the run.
pub fn layout_through(run: &Run, last: usize, width: i32, lang: Lang) -> Layout {
    let mut m = Measured::new(run, width);
    m.extend(run, last, lang);
    m.layout()
}

/// A [`Layout`] measured frame by frame, so that a view whose run grows
/// at its end (the scheduler's picks) measures only the frames it adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    width: i32,
    slots: Layout,
    balancer: i32,
    gap: i32,
    tables: i32,
    /// Frames measured: `0..next`.
    next: usize,
}

impl Measured {
    /// Nothing measured yet, for `run`'s world drawn `width` pixels wide.
    pub fn new(run: &Run, width: i32) -> Measured {
        Measured {
            width: width.max(narrowest(run)),
            slots: Layout::default(),
            balancer: 0,
            gap: 0,
            tables: 0,
            next: 0,
        }
    }

    /// The last frame measured, if any.
    pub fn through(&self) -> Option<usize> {
        self.next.checked_sub(1)
    }

    /// Measures `run`'s frames past those measured, up to `last`. The
    /// frames measured before must be `run`'s own.
    pub fn extend(&mut self, run: &Run, last: usize, lang: Lang) {
        let last = last.min(run.frame_count() - 1);
        for frame in self.next..=last {
            let a = actors(run, frame, self.width, lang);
            self.add(run, frame, &a, lang);
        }
        self.next = self.next.max(last + 1);
    }

    fn add(&mut self, run: &Run, frame: usize, a: &Actors, lang: Lang) {
        let l = &mut self.slots;
        let lines = |b: &Block| b.lines.len();
        widen(&mut l.clients, a.clients.iter().map(Block::height));
        widen(&mut l.instances, a.instances.iter().map(Block::height));
        widen(&mut l.client_lines, a.clients.iter().map(lines));
        widen(&mut l.instance_lines, a.instances.iter().map(lines));
        l.acquirer = l.acquirer.max(a.acquirer.height());
        l.acquirer_lines = l.acquirer_lines.max(a.acquirer.lines.len());
        // The balancer's box says the same in every frame.
        (self.balancer, self.gap) = (a.balancer.height(), a.columns.gap);
        let state = run.state_at(frame);
        l.in_flight = l.in_flight.max(state.in_flight.len());
        widen(&mut l.rows, state.tables.iter().map(|t| t.rows.len()));
        self.tables = self.tables.max(tables_height(state, self.width, ui(lang)));
    }

    /// The layout of the frames measured.
    pub fn layout(&self) -> Layout {
        let mut l = self.slots.clone();
        l.area = column_height(&l.clients)
            .max(column_height(&l.instances))
            .max(l.acquirer)
            .max(self.balancer);
        l.tallest = tables_top(l.area, self.gap) + self.tables + PAD;
        l.width = self.width;
        l
    }
}

/// [`layout`], from every frame's boxes (`all`, one per frame).
fn layout_of(run: &Run, width: i32, lang: Lang, all: &[Actors]) -> Layout {
    let mut m = Measured::new(run, width);
    for (frame, a) in all.iter().enumerate() {
        m.add(run, frame, a, lang);
    }
    m.next = all.len();
    m.layout()
}

/// Raises each slot to the value at its place, adding slots as needed:
/// the most of each over the frames seen so far.
fn widen<T: Copy + Ord + Default>(slots: &mut Vec<T>, values: impl Iterator<Item = T>) {
    for (i, value) in values.enumerate() {
        if i == slots.len() {
            slots.push(T::default());
        }
        slots[i] = slots[i].max(value);
    }
}

/// Where the tables start, below the actors.
fn tables_top(area: i32, gap: i32) -> i32 {
    PAD + area + gap.min(20) + 4
}

/// Draws `frame` of `run` for a board `width` pixels wide, in the run's
/// `layout` for that width: one of [`frames`], alone.
pub fn board(run: &Run, frame: usize, width: i32, lang: Lang, layout: &Layout) -> Board {
    let width = width.max(narrowest(run));
    let frame = frame.min(run.frame_count() - 1);
    draw_frame(
        run,
        frame,
        width,
        lang,
        layout,
        actors(run, frame, width, lang),
    )
}

/// Every frame of `run` drawn for a board `width` pixels wide, and the
/// run's layout at that width: [`layout`] and [`board`] for each frame,
/// with each frame's boxes worded once for both.
pub fn frames(run: &Run, width: i32, lang: Lang) -> (Layout, Vec<Board>) {
    let width = width.max(narrowest(run));
    let all: Vec<Actors> = (0..run.frame_count())
        .map(|frame| actors(run, frame, width, lang))
        .collect();
    let layout = layout_of(run, width, lang, &all);
    let drawn = all
        .into_iter()
        .enumerate()
        .map(|(frame, a)| draw_frame(run, frame, width, lang, &layout, a))
        .collect();
    (layout, drawn)
}

/// [`board`], with the frame's boxes already worded.
fn draw_frame(
    run: &Run,
    frame: usize,
    width: i32,
    lang: Lang,
    layout: &Layout,
    actors: Actors,
) -> Board {
    let t = ui(lang);
    let state = run.state_at(frame);
    let Actors {
        clients,
        instances,
        acquirer,
        balancer,
        columns,
    } = actors;
    let tables_top = tables_top(layout.area, columns.gap);
    let (top, gap, area) = (PAD, GAP, layout.area);
    let client_rects = stack(
        &layout.clients,
        columns.client.0,
        columns.client.1,
        top,
        area,
        gap,
    );
    let instance_rects = stack(
        &layout.instances,
        columns.instance.0,
        columns.instance.1,
        top,
        area,
        gap,
    );
    let balancer_rect = stack(
        &[balancer.height()],
        columns.balancer.0,
        columns.balancer.1,
        top,
        area,
        gap,
    )[0];
    let acquirer_rect = stack(
        &[layout.acquirer],
        columns.acquirer.0,
        columns.acquirer.1,
        top,
        area,
        gap,
    )[0];

    // One root whose children are the parts: each part is built in place.
    let mut svg = el("svg");
    // Wires first, so boxes and messages are drawn over them.
    let wires = svg
        .add("g")
        .add("g")
        .class("wires")
        .attr("aria-hidden", "true");
    for rect in &client_rects {
        wires.line(rect.right_mid(), balancer_rect.left_mid(), "wire");
    }
    for rect in &instance_rects {
        wires.line(balancer_rect.right_mid(), rect.left_mid(), "wire");
        wires.line(rect.right_mid(), acquirer_rect.left_mid(), "wire");
        wires.line(
            rect.bottom_mid(),
            (rect.bottom_mid().0, tables_top),
            "wire db-wire",
        );
    }

    // The groups of clients and instances are named, not described: each
    // box in them carries its own label, which a screen reader reads in
    // turn, and a group label repeating them would change (one more write)
    // at every step.
    let part = svg.add("g");
    let g = part.group("clients", "clients", t.clients);
    for ((block, rect), lines) in clients.iter().zip(&client_rects).zip(&layout.client_lines) {
        draw_block(g, block, *rect, *lines);
    }
    draw_block(part, &balancer, balancer_rect, 0);
    let g = svg.add("g").group("instances", "instances", t.instances);
    let slots = instances.iter().zip(&instance_rects);
    for ((block, rect), lines) in slots.zip(&layout.instance_lines) {
        draw_block(g, block, *rect, *lines);
    }
    draw_block(
        svg.add("g"),
        &acquirer,
        acquirer_rect,
        layout.acquirer_lines,
    );

    let tables = svg.add("g");
    let (bottom, held_rows) = draw_tables(
        tables,
        run,
        frame,
        state,
        tables_top,
        width,
        &layout.rows,
        lang,
        t,
    );

    // A waiting instance points at the row whose transaction it waits for.
    // Each instance has its arrow, hidden while it waits for nothing.
    for (index, instance) in state.instances.iter().enumerate() {
        let waits_on = instance.jobs.iter().find_map(|j| j.waiting_on_instance);
        let target = waits_on.and_then(|holder| held_rows.iter().find(|(i, _)| *i == holder));
        if let (Some((_, row_y)), Some(rect)) = (target, instance_rects.get(index)) {
            let (x, y) = rect.bottom_mid();
            let x = x + 6;
            tables.line((x, y), (x, row_y - 3), "wait-arrow");
            tables
                .add("path")
                .class("wait-head")
                .attr("d", &format!("M{} {} l5 -8 l-10 0 z", x, row_y - 2));
        } else {
            spare(tables, "line").class("wait-arrow");
            spare(tables, "path").class("wait-head");
        }
    }

    let routes = |m: &MessageView| {
        route(
            m,
            &client_rects,
            balancer_rect,
            &instance_rects,
            acquirer_rect,
        )
    };
    // What a message's label keeps clear of: every line of every box, the
    // boxes, the tables, and the drawing's edges. Measured only in a frame
    // with a message to label.
    let mut obstacles = Obstacles {
        bounds: Span::new(0, 0, width, bottom + PAD),
        ..Obstacles::default()
    };
    if !state.in_flight.is_empty() {
        let boxes = clients
            .iter()
            .zip(&client_rects)
            .chain(instances.iter().zip(&instance_rects))
            .chain([(&balancer, &balancer_rect), (&acquirer, &acquirer_rect)]);
        for (block, rect) in boxes {
            words_of(block, *rect, &mut obstacles.words);
            obstacles.boxes.push(span(*rect));
        }
        obstacles
            .words
            .push(Span::new(0, tables_top, width, bottom - tables_top));
    }
    draw_messages(svg.add("g"), state, routes, layout.in_flight, &obstacles, t);
    let parts = svg.kids;
    debug_assert_eq!(parts.len(), PARTS);

    Board {
        parts,
        height: bottom + PAD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use lousa_core::Strategy;
    use lousa_core::builtins::builtin;
    use lousa_core::story::beat_frame;

    /// `board` in the run's own layout.
    fn draw(run: &Run, frame: usize, width: i32, lang: Lang) -> Board {
        board(run, frame, width, lang, &layout(run, width, lang))
    }

    fn story(strategy: Strategy) -> Run {
        let mut scenario = builtin("timeout-retry").expect("built-in");
        scenario.strategy = strategy;
        lousa_core::run(&scenario).expect("valid")
    }

    #[test]
    fn a_charge_taken_three_times_is_not_called_double() {
        let scenario = builtin("race-3").expect("built-in");
        let run = lousa_core::run(&scenario).expect("valid");
        let last = run.frame_count() - 1;
        assert_eq!(run.state_at(last).captures.iter().max(), Some(&3));
        let pt = draw(&run, last, 640, Lang::Pt).markup();
        assert!(pt.contains("COBRADO 3 VEZES"), "{pt}");
        assert!(!pt.contains("EM DOBRO"), "{pt}");
        let en = draw(&run, last, 640, Lang::En).markup();
        assert!(en.contains("CHARGED 3 TIMES"), "{en}");
        assert!(!en.contains("TWICE"), "{en}");
    }

    /// `local-effect` pays the order in the database and never calls the
    /// acquirer: its box counts orders paid without it, from the first
    /// frame, and still raises the alarm when a late retry pays twice.
    #[test]
    fn orders_paid_without_the_acquirer_are_not_called_captures() {
        let paid = |name: &str, strategy| {
            let mut scenario = builtin(name).expect("built-in");
            scenario.strategy = strategy;
            let run = lousa_core::run(&scenario).expect("valid");
            let acquirer = |frame| {
                let drawn = draw(&run, frame, 640, Lang::Pt).markup();
                let at = drawn
                    .find(r#"data-testid="acquirer""#)
                    .expect("the acquirer's box");
                drawn[at..].to_string()
            };
            (acquirer(0), acquirer(run.frame_count() - 1))
        };
        let (start, end) = paid("balance-lost-update", Strategy::LocalEffect);
        for box_ in [&start, &end] {
            assert!(box_.contains("pagos sem"), "{box_}");
            assert!(!box_.contains("capturas"), "{box_}");
        }
        let (_, late) = paid("late-retry-after-ttl", Strategy::LocalEffect);
        assert!(
            late.contains("EM DOBRO") && late.contains("pagos sem"),
            "{late}"
        );
        let (_, keyed) = paid("timeout-retry", Strategy::IdempotencyKey);
        assert!(keyed.contains("capturas"), "{keyed}");
    }

    /// A queue's box speaks of acks, nacks and deliveries, not of statuses.
    #[test]
    fn a_queue_box_says_ack_and_nack() {
        let mut scenario = builtin("queue-redelivery").expect("built-in");
        scenario.strategy = Strategy::IdempotencyKey;
        let run = lousa_core::run(&scenario).expect("valid");
        let boxes: String = (0..run.frame_count())
            .map(|f| {
                let drawn = draw(&run, f, 640, Lang::Pt).markup();
                let at = drawn
                    .find(r#"data-testid="client-0""#)
                    .expect("the queue's box");
                let end = drawn[at..].find("</g>").map_or(drawn.len(), |e| at + e);
                drawn[at..end].to_string()
            })
            .collect();
        // The status stays in the data the tests read, not in the words.
        assert!(boxes.contains(">ouviu: nack<"), "{boxes}");
        assert!(!boxes.contains(": 503"), "{boxes}");
        assert!(!boxes.contains("cobrou"), "{boxes}");
    }

    #[test]
    fn the_double_charge_is_drawn_on_the_acquirer() {
        let run = story(Strategy::CheckThenAct);
        let frame = beat_frame(&run, "second-capture").expect("beat");
        let drawn = draw(&run, frame, 640, Lang::Pt).markup();
        assert!(drawn.contains(r#"data-captures="2""#), "{drawn}");
        assert!(drawn.contains("COBRANÇA EM DOBRO"));
        assert!(drawn.contains("R$ 500,00"));
        assert_eq!(
            drawn.matches(r#"data-testid="row""#).count(),
            2,
            "two rows for one order"
        );
        let english = draw(&run, frame, 640, Lang::En).markup();
        assert!(english.contains("R$ 500.00"), "money as English writes it");
        assert!(!english.contains("R$ 500,00"));
    }

    #[test]
    fn a_queue_is_named_and_hands_its_deliveries_to_consumers() {
        let run = lousa_core::run(&builtin("queue-redelivery").expect("built-in")).expect("valid");
        let drawn = draw(&run, 1, 640, Lang::Pt).markup();
        assert!(
            drawn.contains("fila 1") && !drawn.contains("cliente 1"),
            "{drawn}"
        );
        assert!(drawn.contains("consumidores") && !drawn.contains("load balancer"));
        let english = draw(&run, 1, 640, Lang::En).markup();
        assert!(english.contains("queue 1") && english.contains("consumers"));
        let app = draw(&story(Strategy::CheckThenAct), 1, 640, Lang::Pt).markup();
        assert!(app.contains("cliente 1") && app.contains("load balancer"));
    }

    #[test]
    fn the_client_shows_it_does_not_know_after_the_timeout() {
        let run = story(Strategy::CheckThenAct);
        let frame = beat_frame(&run, "timeout").expect("beat");
        let drawn = draw(&run, frame, 640, Lang::Pt).markup();
        assert!(drawn.contains(r#"data-knowledge="unknown""#));
        assert!(drawn.contains("cobrança incerta"), "{drawn}");
        let english = draw(&run, frame, 640, Lang::En).markup();
        assert!(english.contains("does not know"), "{english}");
    }

    #[test]
    fn an_outbox_row_says_whether_its_event_went_out_in_the_readers_language() {
        let run = lousa_core::run(&builtin("event-outbox").expect("built-in")).expect("valid");
        let cells = |lang| {
            (0..run.frame_count())
                .map(|f| draw(&run, f, 640, lang).markup())
                .collect::<String>()
        };
        let (pt, en) = (cells(Lang::Pt), cells(Lang::En));
        assert!(
            pt.contains(">pendente<") && pt.contains(">publicado<"),
            "{pt}"
        );
        assert!(
            en.contains(">pending<") && en.contains(">published<"),
            "{en}"
        );
        assert!(!en.contains(">pendente<") && !en.contains(">publicado<"));
    }

    #[test]
    fn the_key_design_shows_the_409_and_the_stored_response() {
        let run = story(Strategy::IdempotencyKey);
        let conflict = beat_frame(&run, "conflict").expect("beat");
        let heard = (conflict..run.frame_count())
            .map(|f| draw(&run, f, 640, Lang::Pt).markup())
            .find(|m| m.contains(r#"data-status="409""#));
        assert!(heard.is_some(), "the client hears 409 after the conflict");
        let end = draw(&run, run.frame_count() - 1, 640, Lang::Pt).markup();
        assert!(
            end.contains(r#"data-status="CAPTURADA" data-http="201""#),
            "{end}"
        );
        assert!(end.contains(r#"data-captures="1""#));
        assert!(end.contains("UNIQUE (idempotency_key)"));
    }

    #[test]
    fn an_instance_waiting_on_a_held_row_says_so_and_points_at_it() {
        let run = lousa_core::run(&builtin("held-transaction").expect("built-in")).expect("valid");
        let frame = beat_frame(&run, "retry-decides").expect("beat");
        let drawn = draw(&run, frame, 640, Lang::Pt).markup();
        assert!(drawn.contains(r#"data-waiting-on="0""#), "{drawn}");
        assert!(drawn.contains("espera a linha"), "{drawn}");
        assert!(drawn.contains("não confirmada · instância 1"));
        assert!(drawn.contains("wait-arrow"));
    }

    #[test]
    fn every_frame_of_every_builtin_draws_at_phone_and_desktop_widths() {
        for name in lousa_core::builtins::NAMES {
            let run = lousa_core::run(&builtin(name).expect("built-in")).expect("valid");
            for width in [300, 640, 1000] {
                let mut heights = Vec::new();
                let wires = draw(&run, 0, width, Lang::Pt).part(0);
                for frame in 0..run.frame_count() {
                    let drawn = draw(&run, frame, width, Lang::Pt);
                    assert!(drawn.height > 100, "{name} frame {frame} at {width}px");
                    assert_eq!(drawn.parts.len(), PARTS, "{name} frame {frame}");
                    // The wires run between the boxes' edges: the same wires
                    // mean no box moved or changed size.
                    assert_eq!(drawn.part(0), wires, "{name} frame {frame} at {width}px");
                    heights.push(drawn.height);
                }
                assert_eq!(
                    heights.iter().max(),
                    Some(&layout(&run, width, Lang::Pt).tallest)
                );
            }
        }
    }

    /// What `overflows` finds in every built-in under every design, in both
    /// languages, at the narrowest board, widths across the narrow layout
    /// (where a phone's tall boards are drawn, see `board_aspect`), and
    /// around its end and above, each finding named by world, language,
    /// width and frame (a finding repeated frame after frame is listed
    /// once).
    fn overflows_from_the_narrowest_width_up(
        overflows: impl Fn(&Run, i32, Lang) -> Vec<(usize, String)>,
    ) -> Vec<String> {
        let mut over = Vec::new();
        for name in lousa_core::builtins::NAMES {
            for strategy in Strategy::ALL {
                let mut scenario = builtin(name).expect("built-in");
                scenario.strategy = strategy;
                let Ok(run) = lousa_core::run(&scenario) else {
                    continue;
                };
                let widths = [
                    narrowest(&run),
                    380,
                    420,
                    NARROW_PX - 1,
                    NARROW_PX,
                    640,
                    900,
                ];
                for width in widths.into_iter().filter(|w| *w >= narrowest(&run)) {
                    for lang in [Lang::Pt, Lang::En] {
                        let found = overflows(&run, width, lang).into_iter();
                        over.extend(found.map(|(frame, f)| {
                            format!("{name} {strategy:?} {lang:?} {width} {frame}: {f}")
                        }));
                    }
                }
            }
        }
        over.dedup_by(|a, b| a.split(": ").nth(1) == b.split(": ").nth(1));
        over
    }

    /// Every text `el` draws, as (span, is a message's label), offset by
    /// the `translate`s above it; hidden spares are skipped.
    fn texts_of(el: &El, at: (i32, i32), out: &mut Vec<(Span, String, bool)>) {
        let attr = |name: &str| {
            el.attrs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str())
        };
        if attr("visibility") == Some("hidden") {
            return;
        }
        let at = match attr("transform").and_then(|t| t.strip_prefix("translate(")) {
            Some(xy) => {
                let (x, y) = xy.trim_end_matches(')').split_once(' ').expect("x y");
                (
                    at.0 + x.parse::<i32>().expect("x"),
                    at.1 + y.parse::<i32>().expect("y"),
                )
            }
            None => at,
        };
        if el.tag == "text" && !el.text.is_empty() {
            let num = |name: &str| attr(name).map_or(0, |v| v.parse::<i32>().expect("number"));
            let class = attr("class").unwrap_or("");
            let (x, baseline) = (at.0 + num("x"), at.1 + num("y"));
            let label = class == "msg-label";
            let (w, up, down) = if label {
                (label_place::width(&el.text), 8, 1)
            } else if class.contains("big") {
                (2 * text_width::px(&el.text, true), 19, 2)
            } else {
                (text_width::px(&el.text, bold(class)), 9, 3)
            };
            let left = match attr("text-anchor") {
                Some("end") => x - w,
                Some("middle") => x - w / 2,
                _ if class.contains("big") => x - w / 2,
                _ => x,
            };
            let span = Span {
                left,
                top: baseline - up,
                right: left + w,
                bottom: baseline + down,
            };
            out.push((span, el.text.clone(), label));
        }
        for kid in &el.kids {
            texts_of(kid, at, out);
        }
    }

    /// From a phone's width up, no message's label covers a word of the
    /// board or another label: where five requests reach the load balancer
    /// together, or a capture reaches the acquirer's border, the labels
    /// printed over the boxes' lines and over each other. Two frames are
    /// known to have no free spot: pool-exhausted at its narrowest, 316 px,
    /// where a three-number label at the load balancer sits between five
    /// full client boxes and the instance with 8 px gaps (the page draws
    /// that world wider on a phone; see `board_aspect`).
    #[test]
    fn message_labels_cover_no_word_and_no_other_label() {
        const NO_ROOM: [&str; 2] = [
            "pool-exhausted CheckThenAct Pt 316 147",
            "pool-exhausted IdempotencyKeyHeldTx Pt 316 143",
        ];
        let over = overflows_from_the_narrowest_width_up(|run, width, lang| {
            let (_, boards) = frames(run, width, lang);
            let mut found = Vec::new();
            for (frame, board) in boards.iter().enumerate() {
                let mut texts = Vec::new();
                for part in &board.parts {
                    texts_of(part, (0, 0), &mut texts);
                }
                for (i, (a, a_text, a_label)) in texts.iter().enumerate() {
                    for (b, b_text, b_label) in &texts[i + 1..] {
                        if (*a_label || *b_label) && a.overlap(*b) > 0 {
                            found.push((frame, format!("{a_text:?} covers {b_text:?}")));
                        }
                    }
                }
            }
            found
        });
        let over: Vec<String> = over
            .into_iter()
            .filter(|f| {
                !NO_ROOM
                    .iter()
                    .any(|known| f.starts_with(&format!("{known}:")))
            })
            .collect();
        assert!(
            over.is_empty(),
            "{} labels over words:\n{}",
            over.len(),
            over.join("\n")
        );
    }

    /// From a phone's width up, in both languages, every line of every box
    /// of every frame of every built-in under every design stays inside its
    /// box, as the board's font draws it. A box whose longest word does not
    /// fit would need a board wider than `narrowest`.
    #[test]
    fn every_line_fits_its_box_from_the_narrowest_width_up() {
        let over = overflows_from_the_narrowest_width_up(|run, width, lang| {
            let mut found = Vec::new();
            for frame in 0..run.frame_count() {
                let a = actors(run, frame, width, lang);
                let c = &a.columns;
                let boxes = a.clients.iter().map(|b| (b, c.client.1));
                let boxes = boxes
                    .chain(a.instances.iter().map(|b| (b, c.instance.1)))
                    .chain([(&a.acquirer, c.acquirer.1), (&a.balancer, c.balancer.1)]);
                for (block, w) in boxes {
                    for l in block.lines.iter().filter(|l| l.class != "big") {
                        let drawn = text_width::px(&l.text, bold(l.class));
                        if TEXT_START + drawn + TEXT_END > w {
                            let said = format!("{} {:?} {drawn} px in {w}", block.testid, l.text);
                            found.push((frame, said));
                        }
                    }
                }
            }
            found
        });
        assert!(
            over.is_empty(),
            "{} lines too wide:\n{}",
            over.len(),
            over.join("\n")
        );
    }

    fn class_of(e: &El) -> &str {
        e.attrs
            .iter()
            .find(|(n, _)| *n == "class")
            .map_or("", |(_, v)| v.as_str())
    }

    /// What in a table row passes the next cell or the row's edge, as the
    /// board's font draws it: cells are 12 px, notes 11 px.
    fn row_overflows(part: &El, out: &mut Vec<String>) {
        let num = |e: &El, name| {
            e.attrs
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| v.parse::<i32>().ok())
        };
        let row = part
            .kids
            .iter()
            .find(|k| k.tag == "rect" && class_of(k) == "row-box");
        if let Some(row) = row {
            let right = num(row, "x").unwrap_or(0) + num(row, "width").unwrap_or(0);
            let texts: Vec<(i32, &El)> = part
                .kids
                .iter()
                .filter(|k| k.tag == "text" && !k.text.is_empty())
                .filter_map(|k| Some((num(k, "x")?, k)))
                .collect();
            let cells: Vec<&(i32, &El)> = texts
                .iter()
                .filter(|(_, k)| class_of(k).starts_with("cell"))
                .collect();
            for (i, (x, cell)) in cells.iter().enumerate() {
                let end = cells.get(i + 1).map_or(right, |(next, _)| *next - 4);
                if x + text_width::px(&cell.text, bold(class_of(cell))) > end {
                    out.push(format!("cell {:?} from {x} past {end}", cell.text));
                }
            }
            for (x, note) in texts.iter().filter(|(_, k)| class_of(k) == "note") {
                if x + text_width::px(&note.text, false) * 11 / 12 > right - 4 {
                    out.push(format!("note {:?} from {x} past {}", note.text, right - 4));
                }
            }
        }
        for kid in &part.kids {
            row_overflows(kid, out);
        }
    }

    /// Every table cell stays in its column and every note in its row, in
    /// every frame of every built-in under every design, both languages,
    /// from a phone's width up.
    #[test]
    fn every_cell_and_note_fits_its_row_from_the_narrowest_width_up() {
        let over = overflows_from_the_narrowest_width_up(|run, width, lang| {
            let mut found = Vec::new();
            for (frame, drawn) in frames(run, width, lang).1.iter().enumerate() {
                let mut said = Vec::new();
                row_overflows(&drawn.parts[4], &mut said);
                found.extend(said.into_iter().map(|f| (frame, f)));
            }
            found
        });
        assert!(
            over.is_empty(),
            "{} too wide:\n{}",
            over.len(),
            over.join("\n")
        );
    }

    /// A crashed instance's box says so on one line where it fits, and
    /// otherwise keeps its name whole on the first.
    #[test]
    fn a_down_instance_keeps_its_name_whole() {
        let run =
            lousa_core::run(&builtin("crash-after-commit").expect("built-in")).expect("valid");
        let down = (0..run.frame_count())
            .find(|&f| run.state_at(f).instances.iter().any(|i| !i.alive))
            .expect("an instance goes down");
        let first_lines = |width| {
            let a = actors(&run, down, width, Lang::Pt);
            let boxed = a
                .instances
                .iter()
                .find(|b| b.class.contains("is-down"))
                .expect("down");
            boxed
                .lines
                .iter()
                .take(2)
                .map(|l| l.text.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(first_lines(760)[0], "instância 1: fora do ar");
        assert_eq!(first_lines(narrowest(&run)), ["instância 1", "fora do ar"]);
    }

    /// Two messages at one spot share a label, in order: race-2's two
    /// captures reach the acquirer together, and their numbers were
    /// printed one over the other.
    #[test]
    fn messages_at_one_spot_share_one_label() {
        let run = lousa_core::run(&builtin("race-2").expect("built-in")).expect("valid");
        let mut shared = 0;
        for frame in 0..run.frame_count() {
            let drawn = draw(&run, frame, 640, Lang::Pt);
            let dots: Vec<((i32, i32), &str)> = drawn.parts[5].kids[0]
                .kids
                .iter()
                .filter_map(|dot| {
                    let at = dot.attrs.iter().find(|(n, _)| *n == "transform")?.1.clone();
                    let (x, y) = at
                        .strip_prefix("translate(")?
                        .strip_suffix(')')?
                        .split_once(' ')?;
                    let label = dot.kids.get(1).map_or("", |l| l.text.as_str());
                    Some(((x.parse().ok()?, y.parse().ok()?), label))
                })
                .collect();
            for (i, ((x1, y1), a)) in dots.iter().enumerate() {
                for ((x2, y2), b) in &dots[i + 1..] {
                    if (x1 - x2).abs() < 12
                        && (y1 - y2).abs() < 12
                        && !a.is_empty()
                        && !b.is_empty()
                    {
                        panic!("frame {frame}: {a:?} and {b:?} printed at one spot");
                    }
                }
                shared += usize::from(*a == "#1 #2");
            }
        }
        assert!(
            shared > 0,
            "race-2's captures meet at the acquirer and share a label"
        );
    }

    #[test]
    fn every_frame_has_the_same_bare_parts_so_elements_keep_their_place() {
        let run = story(Strategy::CheckThenAct);
        let drawn = draw(&run, 20, 640, Lang::Pt);
        for part in &drawn.parts {
            assert_eq!((part.tag, part.attrs.len()), ("g", 0));
        }
        assert!(drawn.part(3).contains(r#"data-testid="acquirer""#));
        assert!(drawn.part(5).contains("messages"));
        // Nothing is in flight before the first request: the group is there, empty.
        let start = draw(&run, 0, 640, Lang::Pt).part(5);
        assert!(start.contains(r#"data-count="0""#), "{start}");
        assert!(start.contains("Mensagens a caminho: 0"), "{start}");
    }

    /// The element tree without attributes or text: what the page must
    /// create or remove when it changes.
    fn shape(el: &El) -> String {
        let kids: String = el.kids.iter().map(shape).collect();
        format!("<{}>{kids}</{}>", el.tag, el.tag)
    }

    #[test]
    fn every_frame_of_a_run_has_the_same_elements_so_a_seek_creates_none() {
        for name in lousa_core::builtins::NAMES {
            for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
                let mut scenario = builtin(name).expect("built-in");
                scenario.strategy = strategy;
                let run = lousa_core::run(&scenario).expect("valid");
                for width in [300, 640] {
                    let layout = layout(&run, width, Lang::Pt);
                    let shapes: Vec<String> = (0..run.frame_count())
                        .map(|f| {
                            board(&run, f, width, Lang::Pt, &layout)
                                .parts
                                .iter()
                                .map(shape)
                                .collect()
                        })
                        .collect();
                    for (frame, drawn) in shapes.iter().enumerate() {
                        assert_eq!(
                            drawn, &shapes[0],
                            "{name} {strategy:?} frame {frame} at {width}px"
                        );
                    }
                }
            }
        }
        // Spares are hidden and carry no test id: a table with one row
        // shows one row.
        let run = story(Strategy::CheckThenAct);
        let layout = layout(&run, 640, Lang::Pt);
        let first_row = (0..run.frame_count())
            .find(|&f| run.state_at(f).tables[0].rows.len() == 1)
            .expect("a frame with one row");
        let drawn = board(&run, first_row, 640, Lang::Pt, &layout).markup();
        assert_eq!(drawn.matches(r#"data-testid="row""#).count(), 1, "{drawn}");
        assert!(drawn.contains(r#"visibility="hidden">"#), "{drawn}");
    }

    /// The texts of each row slot (shown or spare) of the first table.
    fn row_texts(drawn: &Board) -> Vec<Vec<String>> {
        let database = drawn.parts[4]
            .kids
            .iter()
            .find(|g| g.attrs.contains(&("data-testid", "database".into())))
            .expect("the first table");
        let rows = database.kids.iter().filter(|k| k.tag == "g");
        rows.map(|row| row.kids.iter().map(|k| k.text.clone()).collect())
            .collect()
    }

    #[test]
    fn a_full_pool_shows_its_queue_on_the_instance() {
        let run = lousa_core::run(&builtin("pool-exhausted").expect("built-in")).expect("valid");
        let layout = layout(&run, 760, Lang::Pt);
        let most = (0..run.frame_count())
            .map(|f| {
                run.state_at(f)
                    .instances
                    .iter()
                    .map(|i| i.connection_queue.len())
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        assert!(most >= 3, "the queue grows, to {most}");
        let at = (0..run.frame_count())
            .find(|&f| {
                run.state_at(f)
                    .instances
                    .iter()
                    .any(|i| i.connection_queue.len() == most)
            })
            .expect("a frame with the longest queue");
        let drawn = board(&run, at, 760, Lang::Pt, &layout).markup();
        assert!(
            drawn.contains(&format!(r#"data-pool-queue="{most}""#)),
            "{drawn}"
        );
        // Who waits, in the order they will get a connection, on the
        // pool's line and on no line of their own.
        let queue = &run.state_at(at).instances[0].connection_queue;
        let order: Vec<String> = queue.iter().map(|a| format!("#{}", a + 1)).collect();
        let said = format!("pool: 0 livres · {most} na fila: {}", order.join(" "));
        let lines: Vec<String> = actors(&run, at, 760, Lang::Pt).instances[0]
            .lines
            .iter()
            .map(|l| l.text.clone())
            .collect();
        assert!(lines.join(" ").contains(&said), "{lines:?}");
        assert!(
            queue.iter().all(|a| lines
                .iter()
                .filter(|l| l.contains(&format!("#{}", a + 1)))
                .count()
                == 1),
            "{lines:?}"
        );
    }

    #[test]
    fn a_layout_measured_in_pieces_is_the_layout_measured_at_once() {
        for name in ["timeout-retry", "race-3", "late-retry-after-ttl"] {
            let run = lousa_core::run(&builtin(name).expect("built-in")).expect("valid");
            let last = run.frame_count() - 1;
            let mut m = Measured::new(&run, 640);
            assert_eq!(m.through(), None);
            for cut in [2, last / 3, last / 3, last] {
                m.extend(&run, cut, Lang::Pt);
                assert_eq!(m.through(), Some(cut));
                assert_eq!(
                    m.layout(),
                    layout_through(&run, cut, 640, Lang::Pt),
                    "{name} {cut}"
                );
            }
            assert_eq!(m.layout(), layout(&run, 640, Lang::Pt));
            assert!(layout_through(&run, 2, 640, Lang::Pt).tallest <= m.layout().tallest);
        }
    }

    #[test]
    fn a_row_that_appears_was_drawn_hidden_with_its_texts_so_it_changes_none() {
        let mut appeared = 0;
        for name in lousa_core::builtins::NAMES {
            for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
                let mut scenario = builtin(name).expect("built-in");
                scenario.strategy = strategy;
                let run = lousa_core::run(&scenario).expect("valid");
                let layout = layout(&run, 640, Lang::Pt);
                let rows = |f: usize| run.state_at(f).tables[0].rows.len();
                for f in 1..run.frame_count() {
                    if rows(f) != rows(f - 1) + 1 {
                        continue;
                    }
                    let slot = rows(f - 1);
                    let before = row_texts(&board(&run, f - 1, 640, Lang::Pt, &layout));
                    let after = row_texts(&board(&run, f, 640, Lang::Pt, &layout));
                    assert!(after[slot].iter().any(|t| !t.is_empty()), "{name} {f}");
                    assert_eq!(before[slot], after[slot], "{name} {strategy:?} frame {f}");
                    appeared += 1;
                }
            }
        }
        assert!(appeared >= 24, "rows appeared {appeared} times");
    }

    #[test]
    fn frames_are_the_layout_and_each_frame_drawn_alone() {
        for name in ["timeout-retry", "race-3"] {
            let run = lousa_core::run(&builtin(name).expect("built-in")).expect("valid");
            for width in [300, 640] {
                let (drawn_layout, drawn) = frames(&run, width, Lang::Pt);
                let alone = layout(&run, width, Lang::Pt);
                assert_eq!(drawn_layout, alone, "{name} at {width}px");
                assert_eq!(drawn.len(), run.frame_count());
                for (frame, board) in drawn.iter().enumerate() {
                    assert_eq!(board, &super::board(&run, frame, width, Lang::Pt, &alone));
                }
            }
        }
    }

    #[test]
    fn a_message_label_stays_off_the_box_at_the_nearer_end_of_its_route() {
        // A capture: the instance's right edge at x 200, the acquirer's
        // left edge at x 400.
        let capture = [(200, 60), (400, 60)];
        assert!(label_goes_right(&capture, 0), "just left the instance");
        assert!(
            !label_goes_right(&capture, 900),
            "about to reach the acquirer"
        );
        // Its reply runs the other way.
        let reply = [(400, 60), (200, 60)];
        assert!(!label_goes_right(&reply, 0), "just left the acquirer");
        assert!(label_goes_right(&reply, 999), "about to reach the instance");
        // A response through the balancer: ends on the client's right edge.
        let response = [(300, 40), (180, 40), (120, 40), (60, 40)];
        assert!(!label_goes_right(&response, 100));
        assert!(label_goes_right(&response, 950));
    }

    #[test]
    fn a_message_in_flight_sits_between_its_ends() {
        let points = [(0, 0), (100, 0)];
        assert_eq!(along(&points, 0), (0, 0));
        assert_eq!(along(&points, 500), (50, 0));
        assert_eq!(along(&points, 1000), (100, 0));
        assert_eq!(along(&[(0, 0), (0, 30), (40, 30)], 500), (5, 30));
        // The float square root gives `isqrt`'s whole pixels at board sizes.
        for dx in (0..3000_i64).step_by(7) {
            for dy in (0..3000_i64).step_by(11) {
                let n = dx * dx + dy * dy;
                assert_eq!((n as f64).sqrt() as i64, n.isqrt(), "{dx} {dy}");
            }
        }
    }
}
