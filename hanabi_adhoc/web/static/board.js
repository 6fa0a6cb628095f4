// Draws a board sent by the server (hanabi_adhoc/web/board.py). No game rules live here:
// every number, card, piece of hint knowledge and move text comes from the server.
// How a card reads (docs/browser.md §2): a face-up card shows its colour and rank; a hidden one
// shows what the hints said, large (the hinted colour as its background, the hinted rank as its
// numeral) and, small, the colours and ranks not ruled out (pips); under a partner's card, what
// its owner knows, in a white strip so that a colour hint shows even on a card of that colour.
(() => {
"use strict";

const COLOUR_NAMES = { R: "red", Y: "yellow", G: "green", W: "white", B: "blue" };
// colour-blind mode: a shape as well as a colour (docs/browser.md §2)
const SYMBOLS = { R: "♥", Y: "★", G: "♣", W: "◆", B: "●" };
const CB_KEY = "hanabi-colour-blind";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// ------------------------------------------------------------------ colour-blind mode
function colourBlind() {
  try { return localStorage.getItem(CB_KEY) === "1"; } catch (_) { return false; }
}

function setColourBlind(on) {
  try { localStorage.setItem(CB_KEY, on ? "1" : "0"); } catch (_) { /* private mode */ }
  document.body.classList.toggle("cb", on);
}

function initColourBlind() {
  const box = document.getElementById("colour-blind");
  const on = colourBlind();
  document.body.classList.toggle("cb", on);
  if (box) {
    box.checked = on;
    box.addEventListener("change", () => setColourBlind(box.checked));
  }
}
document.addEventListener("DOMContentLoaded", initColourBlind);

// a colour's shape, shown in colour-blind mode only (CSS: body.cb .sym)
function sym(colour) {
  return el("span", { class: "sym", "aria-hidden": "true", text: SYMBOLS[colour] || "" });
}

// ------------------------------------------------------------------ cards
// What the owner of a card knows, in words (for screen readers and the tooltip).
function knowledgeText(card, board) {
  const parts = [];
  if (card.hinted_color) parts.push(`told ${COLOUR_NAMES[card.hinted_color]}`);
  if (card.hinted_rank) parts.push(`told ${card.hinted_rank}`);
  if (card.known) parts.push(`knows it is ${COLOUR_NAMES[card.known.color]} ${card.known.rank}`);
  else {
    if (card.colors.length < board.colors.length) {
      parts.push(`could be ${card.colors.map((c) => COLOUR_NAMES[c]).join(", ")}`);
    }
    if (card.ranks.length < board.ranks) parts.push(`could be ${card.ranks.join(", ")}`);
  }
  return parts.join("; ");
}

function describeCard(card, owner, face, board) {
  const what = face ? `${COLOUR_NAMES[face.color]} ${face.rank}` : "hidden";
  const known = knowledgeText(card, board);
  const marks = [card.newest ? "newest card" : "", card.touched ? "touched by the last hint" : ""]
    .filter(Boolean).join(", ");
  return `${owner}, slot ${card.slot}: ${what}` + (known ? `; hints: ${known}` : "; no hint") +
    (marks ? ` (${marks})` : "");
}

// Pips: the colours and ranks not ruled out, when more than one remains.
function pips(card, board) {
  const row = el("span", { class: "pips", "aria-hidden": "true" });
  if (card.colors.length > 1 && card.colors.length <= board.colors.length) {
    const colours = el("span", { class: "pip-colours" });
    for (const c of board.colors) {
      const out = !card.colors.includes(c);
      colours.append(el("span", { class: `pip c-${c}` + (out ? " out" : ""), "data-pip": c }, sym(c)));
    }
    row.append(colours);
  }
  if (card.ranks.length > 1) {
    const ranks = el("span", { class: "pip-ranks" });
    for (let r = 1; r <= board.ranks; r++) {
      ranks.append(el("span", { class: "pip-rank" + (card.ranks.includes(r) ? "" : " out"),
        "data-pip": r, text: String(r) }));
    }
    row.append(ranks);
  }
  return row;
}

// The face of a card: its identity when seen, else what its owner knows (hinted or deduced).
function face(identity, card) {
  const colour = identity ? identity.color : card.known ? card.known.color : card.hinted_color;
  const rank = identity ? identity.rank : card.known ? card.known.rank : card.hinted_rank;
  const node = el("span", { class: "face " + (colour ? `c-${colour}` : "back") });
  if (colour) node.append(el("span", { class: "corner" }, sym(colour)));
  node.append(el("span", { class: "big", "data-big": rank ? String(rank) : colour || "" },
    rank ? String(rank) : colour ? sym(colour) : "?"));
  return node;
}

// What a hint said, large, on a white strip (so a red hint shows on a red card), then pips.
function hintStrip(card, board) {
  const strip = el("span", { class: "know" });
  if (card.hinted_color) {
    strip.append(el("span", { class: `chip c-${card.hinted_color}`, "data-hint-color": card.hinted_color,
      title: `hinted ${COLOUR_NAMES[card.hinted_color]}` }, sym(card.hinted_color)));
  }
  if (card.hinted_rank) {
    strip.append(el("span", { class: "chip rank", "data-hint-rank": card.hinted_rank,
      text: String(card.hinted_rank) }));
  }
  if (!card.known) strip.append(pips(card, board));
  return strip;
}

// opts.reveal: hands with every card (a finished game), shown for the cards hidden in `board`
function cardNode(card, seat, board, opts) {
  const hidden = !card.card;
  const shown = card.card || (opts.reveal && opts.reveal[seat] && opts.reveal[seat][card.slot] &&
    opts.reveal[seat][card.slot].card) || null;
  const clued = Boolean(card.hinted_color || card.hinted_rank);
  const classes = ["slot", hidden ? "hidden" : "seen"];
  if (clued) classes.push("clued");
  if (card.touched) classes.push("touched");
  if (card.newest) classes.push("newest");
  if (hidden && shown) classes.push("revealed");
  const selected = opts.selected && opts.selected[0] === seat && opts.selected[1] === card.slot;
  if (selected) classes.push("selected");
  const owner = seat === opts.you && !opts.youLabel ? "your card" : board.names[seat];
  const button = Boolean(opts.onCard);
  const node = el(button ? "button" : "div", {
    class: classes.join(" "),
    "data-seat": seat,
    "data-slot": card.slot,
    "data-card": card.card ? card.card.color + card.card.rank : "",  // as the server sent it
    "data-face": shown ? shown.color + shown.rank : "",
    "aria-label": describeCard(card, owner, shown, board),
    "aria-pressed": button ? String(Boolean(selected)) : null,
    "aria-disabled": button && !opts.active ? "true" : null,
    title: knowledgeText(card, board) || null,
    type: button ? "button" : null,
    onclick: button ? () => opts.onCard(seat, card.slot) : null,
  });
  node.append(el("span", { class: "slot-no", "aria-hidden": "true", text: String(card.slot) }));
  if (card.touched) node.append(el("span", { class: "arrow", "aria-hidden": "true", text: "▼" }));
  const f = face(shown, card);
  if (hidden && !shown) f.append(pips(card, board));  // own card: pips on the card itself
  node.append(f);
  if (!hidden || shown) node.append(hintStrip(card, board));  // seen: what the owner knows
  return node;
}

function fireworks(board) {
  const row = el("div", { class: "fireworks", "aria-label": "fireworks" });
  for (const c of board.colors) {
    const height = board.fireworks[c];
    row.append(el("div", { class: "stack" },
      el("div", {
        class: `card c-${c}` + (height ? "" : " empty"),
        "data-firework": c,
        "data-height": height,
        "aria-label": `${COLOUR_NAMES[c]} firework: ${height}`,
      }, el("span", { class: "corner" }, sym(c)), String(height)),
      el("div", { text: COLOUR_NAMES[c] })));
  }
  return row;
}

// The discard pile grouped by suit, each suit's cards by rank (as hanab.live stacks it).
function discards(board) {
  const box = el("div", { class: "discards", "aria-label": "discard pile" });
  if (!board.discards.length) box.append(el("span", { class: "note", text: "no discards yet" }));
  for (const c of board.colors) {
    const cards = board.discards.filter(([name]) => name[0] === c)
      .sort((a, b) => Number(a[0].slice(1)) - Number(b[0].slice(1)));
    if (!cards.length) continue;
    const total = cards.reduce((n, [, k]) => n + k, 0);
    const pile = el("div", { class: "pile", "data-pile": c,
      "aria-label": `${COLOUR_NAMES[c]} discards: ` + cards.map(([n, k]) => `${n.slice(1)}×${k}`).join(", ") },
      el("span", { class: "pile-name", text: `${COLOUR_NAMES[c]} (${total})` }));
    for (const [name, count] of cards) {
      for (let i = 0; i < count; i++) {
        pile.append(el("div", { class: `card small c-${c}`, "data-discard": name },
          el("span", { class: "corner" }, sym(c)), name.slice(1)));
      }
    }
    box.append(pile);
  }
  return box;
}

function moveLog(board, recentFrom) {
  const list = el("ol", { class: "log", start: 1, "aria-label": "moves so far" });
  board.moves.forEach((text, i) => {
    list.append(el("li", { class: i >= recentFrom ? "recent" : null, text }));
  });
  return list;
}

function handCaption(board, hand) {
  if (board.hand_order === "fixed") return "fixed slots; ★ newest";
  return hand.length > 1 ? "0 oldest, ★ newest" : "";
}

// opts: you (seat or null for a replay), youLabel (after that seat's name, default " (you)"),
// onCard(seat, slot) (cards are buttons), active (the
// buttons act: the person's turn), selected [seat, slot], recentFrom, reveal (hands with every
// card, shown at the end of a game), afterHands (a node shown under the hands: the move buttons).
function renderBoard(container, board, opts) {
  container.replaceChildren();
  container.append(el("h3", { text: "Fireworks" }), fireworks(board));
  container.append(el("h3", { text: "Hands" }));
  board.hands.forEach((hand, seat) => {
    const toMove = !board.terminal && board.current === seat;
    const mark = opts.youLabel ?? " (you)";
    const you = seat === opts.you && (opts.youLabel || board.names[seat] !== "You") ? mark : "";
    const who = el("div", { class: "who" }, el("span", { class: "name",
      text: board.names[seat] + you + (toMove ? " ▸" : "") }),
    el("span", { class: "order", text: handCaption(board, hand) }));
    const cards = el("div", { class: "cards" });
    for (const card of hand) cards.append(cardNode(card, seat, board, opts));
    container.append(el("div", { class: "hand" + (toMove ? " to-move" : ""), "data-hand": seat,
      "aria-label": `${board.names[seat]}'s hand` }, who, cards));
  });
  if (opts.afterHands) container.append(opts.afterHands);
  container.append(el("h3", { text: "Discards" }), discards(board));
  container.append(el("h3", { text: "Moves" }), moveLog(board, opts.recentFrom ?? board.moves.length));
  const log = container.querySelector(".log");
  log.scrollTop = log.scrollHeight;
}

function tokens(label, on, max, cls) {
  const node = el("span", { class: cls, "aria-label": `${label} ${on} of ${max}`,
    "data-tokens": label.toLowerCase(), "data-value": on }, `${label} `);
  for (let i = 0; i < max; i++) node.append(el("span", { class: i < on ? "on" : null }));
  node.append(` ${on}/${max}`);
  return node;
}

// A board as seat `seat` saw it: its own cards hidden, what the hints told it kept (replays).
function asSeenBy(board, seat) {
  if (seat === null || seat === undefined) return board;
  const hands = board.hands.map((hand, p) => (p === seat ? hand.map((c) => ({ ...c, card: null })) : hand));
  return { ...board, hands, viewer: seat };
}

window.HanabiBoard = { el, renderBoard, tokens, asSeenBy, COLOUR_NAMES, SYMBOLS };
})();
