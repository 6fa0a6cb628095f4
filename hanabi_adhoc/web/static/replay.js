// The replay page: a saved game, move by move, from every seat's point of view as hanab.live's
// shared replays show it. The server replays the saved moves on the engine and sends the board
// at each move (every card, and what each owner knew of it); a seat's view hides that seat's
// own cards and keeps what the hints told it (HanabiBoard.asSeenBy). "What if…" plays on from
// the position shown with moves that were not made (whatif.js).
(() => {
"use strict";

const { el, renderBoard, asSeenBy, tokens } = window.HanabiBoard;
const $ = (id) => document.getElementById(id);
let current = null;
let pov = null;  // the seat whose view is shown; null: every card
let loads = 0;   // the latest request wins when keys step faster than the server answers

async function get(path) {
  const response = await fetch(path);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) {
  $("message").textContent = text || "";
  $("message").hidden = !text;
}

function whatIf() {
  return window.HanabiWhatIf;
}

// The step controls act on the real game only: off during a what-if.
function stepping(on) {
  for (const id of ["first", "prev", "slider", "next-move", "last"]) $(id).disabled = !on;
}

function status(b) {
  $("replay-status").replaceChildren(
    el("span", { "data-score": b.score, text: `Score ${b.score}` }),
    tokens("Hints", b.info, b.max_info, "tokens"),
    tokens("Lives", b.lives, b.max_lives, "tokens lives"),
    el("span", { "data-deck": b.deck, text: `Deck ${b.deck}` }));
}

async function startWhatIf() {
  if (!current || whatIf().active()) return;
  const r = current;
  stepping(false);
  $("whatif-start").disabled = true;
  const started = await whatIf().start(r, pov, () => load(r.session, r.game, r.move));
  if (!started) { stepping(true); $("whatif-start").disabled = r.board.terminal; }
}

async function load(session, game, move) {
  whatIf().end(false);
  const ticket = ++loads;
  let answer;
  try {
    answer = await get(`/api/records/${session}/${game}?move=${move}`);
  } catch (error) {
    if (ticket === loads) say(error.message);
    return;
  }
  if (ticket !== loads) return;
  current = answer;
  say("");
  const r = current;
  stepping(true);
  $("whatif-start").disabled = r.board.terminal;
  status(r.board);
  $("viewer").hidden = false;
  const c = r.config;
  $("viewer-title").textContent = `Session ${r.session}, game ${r.game}: ${c.players} players, ` +
    `${c.hand_size} cards each, ${c.scoring} scoring, ${c.ruleset} rules` +
    (r.result ? `; final score ${r.result.score}` : " (unfinished)");
  $("slider").max = r.total;
  $("slider").value = r.move;
  $("position").textContent = `move ${r.move} of ${r.total}`;
  $("current-move").textContent = r.move ? `Move ${r.move}: ${r.log[r.move - 1].text}` : "The deal.";
  povMenu(r.board.names);
  $("replay-board").dataset.pov = pov === null ? "all" : String(pov);
  renderBoard($("replay-board"), asSeenBy(r.board, pov),
    { you: pov, youLabel: " (this view)", recentFrom: Math.max(0, r.move - 1) });
  $("hanablive").href = `/api/records/${r.session}/${r.game}/hanablive`;
  const table = $("log");
  table.replaceChildren(el("tr", {}, el("th", { text: "#" }), el("th", { text: "move" }),
    el("th", { text: "who" }), el("th", { text: "seconds" })));
  r.log.forEach((m, i) => {
    const row = el("tr", { class: i + 1 === r.move ? "recent" : null },
      el("td", { text: String(i + 1) }), el("td", { text: m.text }),
      el("td", { text: m.player }), el("td", { text: m.seconds.toFixed(2) }));
    row.addEventListener("click", () => load(r.session, r.game, i + 1));
    table.append(row);
  });
}

function povMenu(names) {
  const select = $("pov");
  if (pov !== null && pov >= names.length) pov = null;
  const want = ["all", ...names.map((_, i) => String(i))];
  if ([...select.options].map((o) => o.value).join() !== want.join()) {
    select.replaceChildren(el("option", { value: "all", text: "every card (the game as it was)" }),
      ...names.map((name, i) => el("option", { value: i, text: `seat ${i}: ${name}, as they saw it` })));
  }
  select.value = pov === null ? "all" : String(pov);
}

// Keys as on hanab.live's replays: arrows a move, Home/End the ends, [ ] a round.
function onKey(event) {
  if (!current || $("viewer").hidden || event.ctrlKey || event.altKey || event.metaKey) return;
  if (whatIf().active()) { whatIf().onKey(event); return; }
  const tag = event.target && event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const players = current.board.hands.length;
  const step = { ArrowLeft: -1, ArrowRight: 1, "[": -players, "]": players }[event.key];
  if (step !== undefined) go(current.move + step);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(current.total);
  else return;
  event.preventDefault();
}

function go(move) {
  if (current) load(current.session, current.game, Math.max(0, Math.min(current.total, move)));
}

async function init() {
  if (location.pathname !== "/replay") return;
  document.title = "Saved games";
  $("list").hidden = false;
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(current.move - 1));
  $("next-move").addEventListener("click", () => go(current.move + 1));
  $("last").addEventListener("click", () => go(current.total));
  $("slider").addEventListener("change", () => go(Number($("slider").value)));
  $("whatif-start").addEventListener("click", startWhatIf);
  $("pov").addEventListener("change", () => {
    pov = $("pov").value === "all" ? null : Number($("pov").value);
    if (whatIf().active()) whatIf().setPov(pov);
    else go(current.move);
  });
  document.addEventListener("keydown", onKey);
  let sessions;
  try {
    sessions = await get("/api/records");
  } catch (error) {
    say(error.message);
    return;
  }
  const list = $("sessions");
  if (!sessions.length) {
    list.append(el("li", { text: "No saved session to show: a session is listed here for the " +
      "browser that played it (its games once they are over)." }));
  }
  for (const s of sessions) {
    const item = el("li", { "data-session": s.session },
      `${s.created.slice(0, 16).replace("T", " ")}: ${s.seats.join(", ")} — `);
    for (let g = 1; g <= s.games; g++) {
      item.append(el("button", { type: "button", "data-game": g,
        text: `game ${g} (${s.scores[g - 1]})`, onclick: () => load(s.session, g, 0) }), " ");
    }
    if (!s.games) item.append("no finished game yet");
    list.append(item);
  }
}

document.addEventListener("DOMContentLoaded", init);
})();
