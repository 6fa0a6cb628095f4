// Draws a board sent by the server (hanabi_adhoc/web/board.py). No game rules live here:
// every number, card and move text comes from the server.
(() => {
"use strict";

const COLOUR_NAMES = { R: "red", Y: "yellow", G: "green", W: "white", B: "blue" };

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

// What the owner of a card knows: the hinted colour/rank, else what is still plausible.
function knowledge(card, board) {
  const colours = card.colors.length < board.colors.length ? card.colors.join("") : "";
  const ranks = card.ranks.length < board.ranks ? card.ranks.join("") : "";
  return colours + (colours && ranks ? " " : "") + ranks;
}

function describeCard(card, owner, board) {
  const what = card.card ? `${COLOUR_NAMES[card.card.color]} ${card.card.rank}` : "unknown";
  const known = knowledge(card, board);
  return `${owner}, slot ${card.slot}: ${what}` + (known ? `; they know: ${known}` : "");
}

function cardNode(card, seat, board, opts) {
  const classes = ["card"];
  if (card.card) classes.push(`c-${card.card.color}`);
  else classes.push("hidden");
  if (card.hinted_color) classes.push(`hint-${card.hinted_color}`);
  const selected = opts.selected && opts.selected[0] === seat && opts.selected[1] === card.slot;
  if (selected) classes.push("selected");
  const owner = seat === opts.you ? "your card" : board.names[seat];
  const node = el(opts.onCard ? "button" : "div", {
    class: classes.join(" "),
    "data-seat": seat,
    "data-slot": card.slot,
    "data-card": card.card ? card.card.color + card.card.rank : "",
    "aria-label": describeCard(card, owner, board),
    type: opts.onCard ? "button" : null,
    onclick: opts.onCard ? () => opts.onCard(seat, card.slot) : null,
  });
  node.append(card.card ? String(card.card.rank) : "?");
  const known = knowledge(card, board);
  if (known) node.append(el("span", { class: "know", text: known }));
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
        text: height ? String(height) : "0",
      }),
      el("div", { text: COLOUR_NAMES[c] })));
  }
  return row;
}

function discards(board) {
  const row = el("div", { class: "discards", "aria-label": "discard pile" });
  if (!board.discards.length) row.append(el("span", { class: "note", text: "no discards yet" }));
  for (const [name, count] of board.discards) {
    for (let i = 0; i < count; i++) {
      row.append(el("div", { class: `card small c-${name[0]}`, "data-discard": name, text: name.slice(1) }));
    }
  }
  return row;
}

function moveLog(board, recentFrom) {
  const list = el("ol", { class: "log", start: 1, "aria-label": "moves so far" });
  board.moves.forEach((text, i) => {
    list.append(el("li", { class: i >= recentFrom ? "recent" : null, text }));
  });
  return list;
}

// opts: you (seat or null for a replay), onCard(seat, slot), selected [seat, slot], recentFrom,
// afterHands (a node shown under the hands: the move buttons).
function renderBoard(container, board, opts) {
  container.replaceChildren();
  container.append(el("h3", { text: "Fireworks" }), fireworks(board));
  container.append(el("h3", { text: "Hands" }));
  board.hands.forEach((hand, seat) => {
    const toMove = !board.terminal && board.current === seat;
    const you = seat === opts.you && board.names[seat] !== "You" ? " (you)" : "";
    const who = board.names[seat] + you + (toMove ? " ▸" : "");
    const cards = el("div", { class: "cards" });
    for (const card of hand) cards.append(cardNode(card, seat, board, opts));
    container.append(el("div", { class: "hand" + (toMove ? " to-move" : ""), "data-hand": seat },
      el("div", { class: "who", text: who }), cards));
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

window.HanabiBoard = { el, renderBoard, tokens, COLOUR_NAMES };
})();
