// The play page: setup, study steps, the game, the results. It only shows what the server
// sends and sends the move ids the person clicks; the server checks everything.
(() => {
"use strict";

const { el, renderBoard, tokens, COLOUR_NAMES } = window.HanabiBoard;
const $ = (id) => document.getElementById(id);
const SECTIONS = ["setup", "consent", "questions", "game", "gameover", "done"];

let options = null;
let state = null;
let selected = null;
let timer = null;
let busy = false;

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function say(text, kind) {
  const box = $("message");
  box.textContent = text || "";
  box.className = kind || "";
  box.hidden = !text;
}

function showOnly(...ids) {
  for (const id of SECTIONS) $(id).hidden = !ids.includes(id);
}

// ------------------------------------------------------------------ setup
function partnerRow(value) {
  const list = el("datalist", { id: `agents-${Math.random().toString(36).slice(2)}` });
  for (const m of options.menu) {  // the partners the server prepared, with the games they play
    list.append(el("option", { value: m.spec, label: m.note || m.spec, "data-kind": m.kind }));
  }
  const input = el("input", { class: "partner", value, list: list.id, required: true,
    "aria-label": "partner agent" });
  return el("label", {}, "Partner ", input, list);
}

function refreshSeats() {
  const n = document.querySelectorAll("#partners .partner").length + 1;
  const seat = $("seat");
  const keep = Math.min(Number(seat.value || options.defaults.seat), n - 1);
  seat.replaceChildren();
  for (let i = 0; i < n; i++) {
    seat.append(el("option", { value: i, text: i === 0 ? "0 (you move first)" : String(i) }));
  }
  seat.value = String(keep);
}

// ------------------------------------------------------------------ sessions
// A session belongs to the browser (its cookie), not to the tab: any tab of the browser
// resumes its unfinished sessions, the one this tab played last first. "/?new" always
// shows the setup, and a finished session is never resumed.
const TAB_KEY = "hanabi-session";

function remember(sid) {
  sessionStorage.setItem(TAB_KEY, sid);
}

async function resume() {
  let mine = [];
  try {
    mine = await api("/api/sessions");
  } catch (_) {
    return false;
  }
  const tab = sessionStorage.getItem(TAB_KEY);
  const pick = mine.find((s) => s.session === tab) || mine[0];
  if (!pick) {
    sessionStorage.removeItem(TAB_KEY);
    return false;
  }
  try {
    show(await api(`/api/sessions/${pick.session}`));
  } catch (_) {
    sessionStorage.removeItem(TAB_KEY);
    return false;
  }
  remember(pick.session);
  return true;
}

function showSetup() {
  const d = options.defaults;
  showOnly("setup");
  $("partners").replaceChildren(...(options.fixed ? [] : d.partners.map(partnerRow)));
  $("fixed-partners").hidden = !options.fixed;
  $("fixed-partners").textContent = `You play ${d.games} game(s) with: ${d.partners.join(", ")}.`;
  for (const node of document.querySelectorAll(".free, #add-partner, #remove-partner")) {
    node.hidden = options.fixed;
  }
  if (options.fixed) {
    $("seat").replaceChildren();
    for (let i = 0; i <= d.partners.length; i++) $("seat").append(el("option", { value: i, text: String(i) }));
    $("seat").value = String(d.seat);
  } else refreshSeats();
  $("games").value = d.games;
  $("scoring").value = d.scoring;
  $("hand-size").value = d.hand_size ?? "";
  $("seed").value = d.seed ?? "";
  $("seed").placeholder = "a new one each session";
}

async function start(event) {
  event.preventDefault();
  const settings = { seat: Number($("seat").value) };
  if (!options.fixed) {
    settings.partners = [...document.querySelectorAll("#partners .partner")].map((i) => i.value);
    settings.games = Number($("games").value);
    settings.scoring = $("scoring").value;
    settings.hand_size = $("hand-size").value === "" ? null : Number($("hand-size").value);
    settings.seed = $("seed").value === "" ? null : Number($("seed").value);
  }
  say("Starting…", "info");
  $("start").disabled = true;
  try {
    show(await api("/api/sessions", settings));
    remember(state.session);
    history.replaceState(null, "", "/");  // a reload now resumes this session
    say("");
  } catch (error) {
    say(error.message);
  } finally {
    $("start").disabled = false;
  }
}

// ------------------------------------------------------------------ study
function questionField(q) {
  const box = el("fieldset", { "data-question": q.id }, el("legend", { text: q.text }));
  if (q.kind === "text") {
    box.append(el("textarea", { name: q.id, rows: 3, maxlength: 2000 }));
  } else {
    const values = q.kind === "choice" ? q.options : [];
    if (q.kind === "scale") for (let v = q.min; v <= q.max; v++) values.push(v);
    const row = el("div", { class: "row" });
    if (q.kind === "scale" && q.labels) row.append(el("span", { class: "note", text: q.labels[0] }));
    for (const v of values) {
      row.append(el("label", {}, el("input", { type: "radio", name: q.id, value: v }), ` ${v}`));
    }
    if (q.kind === "scale" && q.labels) row.append(el("span", { class: "note", text: q.labels[1] }));
    box.append(row);
  }
  return box;
}

function showQuestions(questions) {
  showOnly("questions");
  $("questions-title").textContent = state.phase === "pre" ? "Before you play" : "After the games";
  const form = $("questions-form");
  form.replaceChildren(...questions.map(questionField), el("button", { type: "submit", id: "submit-answers", text: "Continue" }));
  form.onsubmit = async (event) => {
    event.preventDefault();
    const answers = {};
    for (const q of questions) {
      const input = form.querySelector(q.kind === "text" ? `[name="${q.id}"]` : `[name="${q.id}"]:checked`);
      if (!input || input.value === "") continue;
      answers[q.id] = q.kind === "scale" ? Number(input.value) : input.value;
    }
    await send(`/api/sessions/${state.session}/answer`, { stage: state.phase, answers });
  };
}

// ------------------------------------------------------------------ the game
function status() {
  const b = state.board;
  const line = $("status");
  const turn = state.game_over ? "Game over: every hand shown" :
    state.your_turn ? "Your turn: choose one of your cards, or a partner's card to hint" :
      `${b.names[b.current]} is thinking…`;
  line.replaceChildren(
    el("span", { text: `Game ${state.game} of ${state.games}` }),
    el("span", { "data-score": b.score, text: `Score ${b.score}` }),
    tokens("Hints", b.info, b.max_info, "tokens"),
    tokens("Lives", b.lives, b.max_lives, "tokens lives"),
    el("span", { "data-deck": b.deck, text: `Deck ${b.deck}` }),
    el("span", { class: "turn", text: turn }));
}

function moveButton(move, label, key) {
  return el("button", { type: "button", "data-move-id": move.id, "data-kind": move.kind,
    "data-legal": String(move.legal), "aria-keyshortcuts": key || null, onclick: () => play(move.id) },
  label, key ? el("kbd", { text: key }) : null);
}

function actions() {
  const box = $("actions");
  box.replaceChildren();
  if (!state.your_turn || !selected) return;
  const [seat, slot] = selected;
  const menu = state.menu;
  if (seat === state.you) {
    const pick = (kind) => menu.find((m) => m.kind === kind && m.slot === slot);
    box.append(moveButton(pick("play"), `Play this card (slot ${slot}) `, "A"),
      moveButton(pick("discard"), `Discard this card (slot ${slot}) `, "D"));
  } else {
    const card = state.board.hands[seat][slot].card;
    const colour = menu.find((m) => m.kind === "reveal_color" && m.target === seat && m.color === card.color);
    const rank = menu.find((m) => m.kind === "reveal_rank" && m.target === seat && m.rank === card.rank);
    const name = state.board.names[seat];
    box.append(moveButton(colour, `Hint ${COLOUR_NAMES[card.color]} to ${name} `, "C"),
      moveButton(rank, `Hint ${card.rank}s to ${name} `, "N"));
  }
  box.append(el("button", { type: "button", "data-kind": "cancel", onclick: cancel },
    "Cancel ", el("kbd", { text: "Esc" })));
}

function lastOwnMove() {
  const movers = state.board.movers;
  for (let i = movers.length - 1; i >= 0; i--) if (movers[i] === state.you) return i;
  return 0;
}

// ------------------------------------------------------------------ focus and keyboard
// Focus stays on the board: on the card last chosen (or the first action after choosing one),
// re-found by seat and slot after every redraw, so that the keys keep working.
let focusCard = null;     // [seat, slot] the keyboard is on
let focusActions = false; // a card was just chosen: focus its first move button

function boardHasFocus() {
  const active = document.activeElement;
  return !active || active === document.body || $("game").contains(active);
}

function cardButton(seat, slot) {
  return document.querySelector(`#board [data-seat='${seat}'][data-slot='${slot}']`);
}

function restoreFocus() {
  let node = null;
  if (focusActions) node = $("actions").querySelector("button");
  if (!node && focusCard) {
    const hand = state.board.hands[focusCard[0]] || [];
    node = cardButton(focusCard[0], Math.min(focusCard[1], hand.length - 1));
  }
  (node || $("board")).focus({ preventScroll: true });
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

// The seat and slot the keys act on: the chosen card, else the focused one.
function target() {
  if (selected) return selected;
  const active = document.activeElement;
  if (active && active.dataset && active.dataset.slot !== undefined && $("board").contains(active)) {
    return [Number(active.dataset.seat), Number(active.dataset.slot)];
  }
  return null;
}

function moveFocus(dSeat, dSlot) {
  const hands = state.board.hands;
  const from = target() || focusCard;
  let [seat, slot] = from || [state.you, 0];
  if (from && dSeat) seat = (seat + dSeat + hands.length) % hands.length;
  if (from) slot = Math.max(0, Math.min(hands[seat].length - 1, slot + dSlot));
  focusCard = [seat, slot];
  focusActions = false;
  const node = cardButton(seat, slot);
  if (node) node.focus();
}

// The move of the keys: play/discard the person's card, or hint a partner.
function keyMove(key, on) {
  const menu = state.menu;
  const [seat, slot] = on;
  if (seat === state.you) {
    const kind = { a: "play", "+": "play", d: "discard", "-": "discard" }[key];
    return kind ? menu.find((m) => m.kind === kind && m.slot === slot) : null;
  }
  const card = state.board.hands[seat][slot].card;
  const colours = state.board.colors;
  let colour = "qwert".indexOf(key) >= 0 ? colours["qwert".indexOf(key)] : null;
  let rank = /^[1-9]$/.test(key) && Number(key) <= state.board.ranks ? Number(key) : null;
  if (key === "c") colour = card.color;
  if (key === "n") rank = card.rank;
  if (colour) return menu.find((m) => m.kind === "reveal_color" && m.target === seat && m.color === colour);
  if (rank) return menu.find((m) => m.kind === "reveal_rank" && m.target === seat && m.rank === rank);
  return null;
}

function onKey(event) {
  if ($("game").hidden || !state || !state.board || event.ctrlKey || event.altKey || event.metaKey) return;
  const tag = event.target && event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const arrows = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  if (arrows[event.key]) {
    event.preventDefault();
    moveFocus(...arrows[event.key]);
    return;
  }
  if (event.key === "Escape") {
    if (selected) cancel();
    return;
  }
  const on = target();
  if (!state.your_turn || !on || busy) return;
  const move = keyMove(event.key.toLowerCase(), on);
  if (move) {
    event.preventDefault();
    focusCard = on;
    focusActions = false;
    play(move.id);
  }
}

// ------------------------------------------------------------------ the end of a game
// Every hand, the person's included, once the game is over: the saved game's last board,
// which the server gives this browser only then (docs/browser.md §2).
let revealed = null; // {key: "session:game", hands}

async function reveal() {
  const key = `${state.session}:${state.game}`;
  if (revealed && revealed.key === key) return;
  try {
    const r = await api(`/api/records/${state.session}/${state.game}?move=100000`);
    revealed = { key, hands: r.board.hands };
  } catch (_) {
    return;  // not served (e.g. not saved): the hands stay as the hints left them
  }
  if (state.game_over && `${state.session}:${state.game}` === key) draw();
}

function draw() {
  const keep = boardHasFocus();
  status();
  $("settings-line").textContent = `${state.config.settings}; you are seat ${state.you}.`;
  const over = state.game_over && revealed && revealed.key === `${state.session}:${state.game}`;
  renderBoard($("board"), state.board, {
    you: state.you,
    selected,
    recentFrom: lastOwnMove(),
    afterHands: $("actions"),
    active: state.your_turn,
    reveal: over ? revealed.hands : null,
    onCard: (seat, slot) => {
      if (state.your_turn) choose(seat, slot);
      else focusCard = [seat, slot];
    },
  });
  $("board").dataset.revealed = over ? "true" : "false";
  actions();
  if (keep) restoreFocus();
}

async function play(id) {
  if (busy) return;
  focusActions = false;  // after the move, focus goes back to the card
  await send(`/api/sessions/${state.session}/move`, { action: id, turn: state.turn });
}

async function advance() {
  timer = null;
  await send(`/api/sessions/${state.session}/advance`, { turn: state.turn });
}

async function send(path, body) {
  busy = true;
  try {
    const next = await api(path, body);
    say("");
    show(next);
  } catch (error) {
    say(error.message);
    if (error.status === 409 || error.status === 404) {  // stale: show the server's board
      try { show(await api(`/api/sessions/${state.session}`)); } catch (_) { /* shown above */ }
    }
  } finally {
    busy = false;
  }
}

// ------------------------------------------------------------------ results
function fmt(x) {
  return x === null || x === undefined ? "n/a" : x.toFixed(2);
}

function metricsTable(result) {
  const table = $("metrics");
  table.replaceChildren(el("tr", {}, el("th", { text: "seat" }),
    el("th", { text: "communicativeness (this game)" }), el("th", { text: "IPP (this game)" }),
    el("th", { text: "communicativeness (session)" }), el("th", { text: "IPP (session)" })));
  result.metrics.forEach((m, i) => {
    const s = result.session_metrics[i];
    table.append(el("tr", { "data-seat": i }, el("td", { text: m.name }),
      el("td", { text: fmt(m.communicativeness) }), el("td", { text: fmt(m.ipp) }),
      el("td", { text: fmt(s.communicativeness) }), el("td", { text: fmt(s.ipp) })));
  });
}

function cellOf(x) {
  return x === null ? null : Math.min(4, Math.floor(x * 5));
}

function heatmap(meta) {
  const grid = meta.grid;
  const top = Math.max(...meta.belief);
  const you = [cellOf(meta.person.communicativeness), cellOf(meta.person.ipp)];
  const response = (meta.next_response || meta.played_response || "").match(/\[(\d+),(\d+)\]/);
  const map = el("div", { class: "heatmap", role: "img",
    "aria-label": `belief over the cells; best guess ${meta.estimate}` });
  map.style.gridTemplateColumns = `repeat(${grid[0].length + 1}, auto)`;
  for (let i = grid.length - 1; i >= 0; i--) {
    map.append(el("div", { class: "axis", text: `c${i}` }));
    grid[i].forEach((b, j) => {
      const cls = [b === null ? "none" : ""];
      if (you[0] === i && you[1] === j) cls.push("you");
      if (response && Number(response[1]) === i && Number(response[2]) === j) cls.push("response");
      const cell = el("div", { class: cls.join(" "), "data-cell": `[${i},${j}]`,
        text: b === null ? "" : `${Math.round(100 * b)}%` });
      if (b !== null) cell.style.background = `rgba(31, 111, 214, ${(0.08 + 0.92 * b / top).toFixed(3)})`;
      if (b !== null && b / top > 0.55) cell.style.color = "#fff";
      map.append(cell);
    });
  }
  map.append(el("div", { class: "axis" }));
  grid[0].forEach((_, j) => map.append(el("div", { class: "axis", text: `i${j}` })));
  return map;
}

function metaPanel(meta) {
  const body = $("meta-body");
  body.replaceChildren();
  const you = meta.person;
  body.append(el("p", { text: `After this game the meta-agent (${meta.variant}) thinks you play most like cell ${meta.estimate} ` +
    `of the 5x5 population (rows c: communicativeness, columns i: IPP, each in fifths of 0-1).` }));
  if (meta.grid) body.append(heatmap(meta));
  body.append(el("p", { class: "legend", text: "Red frame: the cell of your measured play. " +
    "Yellow frame: the response the agent plays next." }));
  body.append(el("p", { "data-meta-response": meta.next_response || "", text:
    (meta.next_response ? `Next game it plays the response of cell ${meta.next_response}` :
      "It draws its response at random each game") + ` (this game: ${meta.played_response}).` }));
  body.append(el("p", { text: `Your measured communicativeness so far: ${fmt(you.communicativeness)}; ` +
    `IPP (information per play): ${fmt(you.ipp)}.` }));
}

function showResult() {
  const result = state.results[state.results.length - 1];
  $("gameover").hidden = false;
  $("gameover-title").textContent = `Game ${result.game} of ${state.games}: score ${result.score}`;
  metricsTable(result);
  const h = result.hanablive;
  $("hanablive-note").textContent = h.truncated ?
    `hanab.live would have ended this game after ${h.moves} moves (${h.end_reason.replaceAll("_", " ")}); ` +
    `its hanab.live record stops there. Here the game went on to the end, as in HLE.` :
    "This game's record replays on hanab.live (see Saved games).";
  const meta = result.meta;
  $("meta-panel").hidden = !(meta && state.show_belief);
  if (meta && state.show_belief) metaPanel(meta);
  $("meta-body").hidden = !$("show-belief").checked;
  $("next").textContent = state.more_games ? "Next game" : "Finish";
  if (boardHasFocus()) $("next").focus({ preventScroll: true });
}

function showDone() {
  showOnly("done");
  const scores = state.results.map((r) => r.score);
  $("done-text").textContent = scores.length ?
    `You played ${scores.length} game(s); scores: ${scores.join(", ")}.` : "The session is over.";
}

// ------------------------------------------------------------------ the state machine
function show(next) {
  const newGame = !state || next.game !== state.game || next.turn < state.turn;
  state = next;
  if (newGame) selected = null;
  if (timer) { clearTimeout(timer); timer = null; }
  if (state.phase === "consent") {
    showOnly("consent");
    $("consent-text").textContent = state.study.consent;
  } else if (state.phase === "pre" || state.phase === "post") {
    showQuestions(state.study.questions);
  } else if (state.phase === "done") {
    showDone();
  } else {
    showOnly("game");
    // for tests and assistive tools: which move of which game the page shows, and whose turn
    $("game").dataset.turn = `${state.game}:${state.turn}`;
    $("game").dataset.state = state.game_over ? "over" : state.your_turn ? "your-turn" : "partner";
    if (!state.your_turn) selected = null;
    draw();
    if (state.game_over) { showResult(); reveal(); }
    else if (!state.your_turn) timer = setTimeout(advance, state.agent_delay_ms);
  }
}

async function init() {
  if (location.pathname === "/replay") return;  // the saved games: replay.js
  $("setup-form").addEventListener("submit", start);
  $("add-partner").addEventListener("click", () => {
    if (document.querySelectorAll("#partners .partner").length < 4) $("partners").append(partnerRow("Piers"));
    refreshSeats();
  });
  $("remove-partner").addEventListener("click", () => {
    const rows = $("partners").children;
    if (rows.length > 1) rows[rows.length - 1].remove();
    refreshSeats();
  });
  $("agree").addEventListener("click", () => send(`/api/sessions/${state.session}/answer`, { stage: "consent", answers: { agree: true } }));
  $("next").addEventListener("click", () => send(`/api/sessions/${state.session}/next`, { game: state.game }));
  $("show-belief").addEventListener("change", () => { $("meta-body").hidden = !$("show-belief").checked; });
  document.addEventListener("keydown", onKey);
  try {
    options = await api("/api/options");
  } catch (error) {
    say(`The server does not answer: ${error.message}`);
    return;
  }
  if (!new URLSearchParams(location.search).has("new") && await resume()) return;
  showSetup();
}

document.addEventListener("DOMContentLoaded", init);
})();
