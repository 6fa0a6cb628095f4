// What if… on the replay page (hanab.live's hypotheticals): from the position shown, make moves
// that were not made, as whichever seat is to move, and see what would have happened (the deck
// is known once the game is over); undo them one at a time; go back to the real game. The page
// keeps only the list of moves: each time it sends the whole list to the server, which replays
// the real game to that position, checks every move and sends the boards (app.py, whatif.py).
// The controls and keys are the play page's (docs/browser.md §2).
(() => {
"use strict";

const { el, renderBoard, tokens, COLOUR_NAMES } = window.HanabiBoard;
const $ = (id) => document.getElementById(id);

let hypo = null;  // {session, game, move, pov, log, actions, answer, onEnd}
let selected = null;      // [seat, slot] chosen: its moves are shown
let focusCard = null;     // [seat, slot] the keys are on
let focusActions = false; // a card was just chosen: focus its first move button
let busy = false;

function say(text) {
  $("message").textContent = text || "";
  $("message").hidden = !text;
}

async function post(path, body) {
  const response = await fetch(path, { method: "POST",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function board() {
  return hypo.answer.boards[hypo.answer.boards.length - 1];
}

// Ask the server for the boards after `actions`; on a refusal nothing changes but the message.
async function ask(actions) {
  if (busy) return false;
  busy = true;
  try {
    const answer = await post(`/api/records/${hypo.session}/${hypo.game}/whatif`,
      { move: hypo.move, actions, seat: hypo.pov });
    if (!hypo) return false;
    hypo.actions = actions;
    hypo.answer = answer;
    say("");
    return true;
  } catch (error) {
    say(error.message);
    return false;
  } finally {
    busy = false;
  }
}

// ------------------------------------------------------------------ entering and leaving
// `replay`: the replay page's answer at the position shown; `onEnd`: back to the real game.
async function start(replay, pov, onEnd) {
  hypo = { session: replay.session, game: replay.game, move: replay.move, pov,
    log: replay.log, actions: [], answer: null, onEnd };
  selected = null;
  focusCard = null;
  if (!(await ask([]))) { hypo = null; return false; }
  $("viewer").dataset.whatif = "on";
  $("whatif-banner").hidden = false;
  draw();
  $("replay-board").focus({ preventScroll: true });
  return true;
}

// Back to the real game (`back` false: the replay page is loading another position itself).
function end(back = true) {
  if (!hypo) return;
  const onEnd = back ? hypo.onEnd : () => {};
  hypo = null;
  selected = null;
  $("viewer").dataset.whatif = "off";
  $("whatif-banner").hidden = true;
  $("whatif-actions").replaceChildren();
  say("");
  onEnd();
  $("replay-board").focus({ preventScroll: true });
}

async function undo() {
  if (!hypo || !hypo.actions.length) return;
  selected = null;
  focusActions = false;
  if (await ask(hypo.actions.slice(0, -1))) draw();
}

async function act(id) {
  if (!hypo) return;
  focusActions = false;
  selected = null;
  await ask([...hypo.actions, id]);
  draw();
}

async function setPov(pov) {
  if (!hypo) return;
  hypo.pov = pov;
  if (await ask(hypo.actions)) draw();
}

// ------------------------------------------------------------------ drawing
function status(b) {
  const mover = b.names[b.current];
  const turn = b.terminal ? "The game would be over here." :
    `${mover} (seat ${b.current}) to move: choose one of their cards to play or discard, or ` +
    "a partner's card to hint";
  $("replay-status").replaceChildren(
    el("span", { "data-score": b.score, text: `Score ${b.score}` }),
    tokens("Hints", b.info, b.max_info, "tokens"),
    tokens("Lives", b.lives, b.max_lives, "tokens lives"),
    el("span", { "data-deck": b.deck, text: `Deck ${b.deck}` }),
    el("span", { class: "turn", text: turn }));
}

function moveButton(move, label, key) {
  return el("button", { type: "button", "data-move-id": move.id, "data-kind": move.kind,
    "data-legal": String(move.legal), "aria-keyshortcuts": key || null, onclick: () => act(move.id) },
  label, key ? el("kbd", { text: key }) : null);
}

// The moves of the chosen card: as on the play page (a hidden card: every hint to its owner).
function actions() {
  const box = $("whatif-actions");
  box.replaceChildren();
  const b = board();
  if (!selected || b.terminal) return;
  const [seat, slot] = selected;
  const menu = hypo.answer.menu;
  if (seat === b.current) {
    const pick = (kind) => menu.find((m) => m.kind === kind && m.slot === slot);
    box.append(moveButton(pick("play"), `Play this card (slot ${slot}) `, "A"),
      moveButton(pick("discard"), `Discard this card (slot ${slot}) `, "D"));
  } else {
    const card = b.hands[seat][slot].card;
    const name = b.names[seat];
    const hints = menu.filter((m) => m.target === seat && (card ? (m.kind === "reveal_color" &&
      m.color === card.color) || (m.kind === "reveal_rank" && m.rank === card.rank) : m.legal));
    for (const m of hints) {
      const what = m.kind === "reveal_color" ? COLOUR_NAMES[m.color] : `${m.rank}s`;
      const key = card ? (m.kind === "reveal_color" ? "C" : "N") : null;
      box.append(moveButton(m, `Hint ${what} to ${name} `, key));
    }
  }
  box.append(el("button", { type: "button", "data-kind": "cancel", onclick: cancel },
    "Cancel ", el("kbd", { text: "Esc" })));
}

function logTable() {
  const table = $("log");
  table.replaceChildren(el("tr", {}, el("th", { text: "#" }), el("th", { text: "move" }),
    el("th", { text: "who" }), el("th", { text: "seconds" })));
  hypo.log.slice(0, hypo.move).forEach((m, i) => {
    table.append(el("tr", {}, el("td", { text: String(i + 1) }), el("td", { text: m.text }),
      el("td", { text: m.player }), el("td", { text: m.seconds.toFixed(2) })));
  });
  hypo.answer.moves.forEach((m, i) => {
    table.append(el("tr", { class: "hypo", "data-hypo": i + 1 },
      el("td", { text: `${hypo.move + i + 1}?` }),
      el("td", {}, el("span", { class: "hypo-tag", text: "what if" }), ` ${m.text}`),
      el("td", { text: m.name }), el("td", { text: "—" })));
  });
}

function draw() {
  if (!hypo) return;
  const b = board();
  const n = hypo.answer.moves.length;
  status(b);
  $("whatif-from").textContent = `from move ${hypo.move} of ${hypo.answer.total}`;
  $("whatif-count").textContent = n === 1 ? "1 move not made" : `${n} moves not made`;
  $("whatif-undo").disabled = n === 0;
  $("position").textContent = `move ${hypo.move} + ${n} what if`;
  $("current-move").textContent = n ? `What if ${n}: ${hypo.answer.moves[n - 1].text}` :
    `What if… from move ${hypo.move}: the real game stops here.`;
  $("replay-board").dataset.pov = hypo.pov === null ? "all" : String(hypo.pov);
  renderBoard($("replay-board"), b, {
    you: hypo.pov, youLabel: " (this view)", recentFrom: hypo.move, selected,
    active: !b.terminal, afterHands: $("whatif-actions"),
    onCard: (seat, slot) => { if (!b.terminal) choose(seat, slot); },
  });
  // the board's own log: the moves not made marked as such
  $("replay-board").querySelectorAll(".log li").forEach((li, i) => {
    if (i >= hypo.move) li.classList.add("hypo");
  });
  actions();
  logTable();
  restoreFocus();
}

// ------------------------------------------------------------------ focus and keys (play.js's)
function cardButton(seat, slot) {
  return document.querySelector(`#replay-board [data-seat='${seat}'][data-slot='${slot}']`);
}

function restoreFocus() {
  let node = null;
  if (focusActions) node = $("whatif-actions").querySelector("button");
  if (!node && focusCard) {
    const hand = board().hands[focusCard[0]] || [];
    node = cardButton(focusCard[0], Math.min(focusCard[1], hand.length - 1));
  }
  const active = document.activeElement;
  if (!active || active === document.body || $("viewer").contains(active)) {
    (node || $("replay-board")).focus({ preventScroll: true });
  }
}

function choose(seat, slot) {
  selected = [seat, slot];
  focusCard = [seat, slot];
  focusActions = true;
  say("");
  draw();
}

function cancel() {
  selected = null;
  focusActions = false;
  draw();
}

function target() {
  if (selected) return selected;
  const active = document.activeElement;
  if (active && active.dataset && active.dataset.slot !== undefined && $("replay-board").contains(active)) {
    return [Number(active.dataset.seat), Number(active.dataset.slot)];
  }
  return null;
}

function moveFocus(dSeat, dSlot) {
  const hands = board().hands;
  const from = target() || focusCard;
  let [seat, slot] = from || [board().current, 0];
  if (from && dSeat) seat = (seat + dSeat + hands.length) % hands.length;
  if (from) slot = Math.max(0, Math.min(hands[seat].length - 1, slot + dSlot));
  focusCard = [seat, slot];
  focusActions = false;
  const node = cardButton(seat, slot);
  if (node) node.focus();
}

function keyMove(key, on) {
  const b = board();
  const menu = hypo.answer.menu;
  const [seat, slot] = on;
  if (seat === b.current) {
    const kind = { a: "play", "+": "play", d: "discard", "-": "discard" }[key];
    return kind ? menu.find((m) => m.kind === kind && m.slot === slot) : null;
  }
  const card = b.hands[seat][slot].card;
  let colour = "qwert".indexOf(key) >= 0 ? b.colors["qwert".indexOf(key)] : null;
  let rank = /^[1-9]$/.test(key) && Number(key) <= b.ranks ? Number(key) : null;
  if (key === "c" && card) colour = card.color;
  if (key === "n" && card) rank = card.rank;
  if (colour) return menu.find((m) => m.kind === "reveal_color" && m.target === seat && m.color === colour);
  if (rank) return menu.find((m) => m.kind === "reveal_rank" && m.target === seat && m.rank === rank);
  return null;
}

// The play page's keys, and Backspace: undo one move; Esc: put the card back, else leave.
function onKey(event) {
  const tag = event.target && event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const arrows = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  if (arrows[event.key]) {
    event.preventDefault();
    moveFocus(...arrows[event.key]);
  } else if (event.key === "Escape") {
    event.preventDefault();
    if (selected) cancel();
    else end();
  } else if (event.key === "Backspace") {
    event.preventDefault();
    undo();
  } else {
    const on = target();
    if (!on || busy || board().terminal) return;
    const move = keyMove(event.key.toLowerCase(), on);
    if (!move) return;
    event.preventDefault();
    focusCard = on;
    act(move.id);
  }
}

function init() {
  if (location.pathname !== "/replay") return;
  $("whatif-undo").addEventListener("click", undo);
  $("whatif-end").addEventListener("click", () => end());
}

document.addEventListener("DOMContentLoaded", init);
window.HanabiWhatIf = { start, end, setPov, onKey, active: () => hypo !== null };
})();
