// zeroplay web board: the parts for Go (and any game the server gives a pass and a score).
// Loaded before app.js; app.js calls goOptions, goArrived, goPanel and gameKind. The game JSON
// says what the game has (pass_move, columns, star_points, score): nothing here tests a name
// except the menu's choice of the game to start.
"use strict";

// Go's board sides [smallest, largest]: the server's /api/defaults board_sizes.go (the game's own
// Game.board_sizes) replaces this fallback for an older server.
let goBoardSizes = [5, 19];

// The server's sizes per game (from /api/defaults), when it sends them.
function goSetBoardSizes(sizes) {
  if (sizes && Array.isArray(sizes.go) && sizes.go.length === 2) goBoardSizes = sizes.go;
}

// The game the form starts: the Game menu (disabled and set to the server's game under --model).
function gameKind() {
  const sel = document.getElementById("opt-game");
  return sel ? sel.value : "gomoku";
}

// The Go settings of a new game (board, komi, scoring) added to the request `o`.
function goOptions(o) {
  o.game = "go";
  const size = parseInt(document.getElementById("opt-size").value, 10);
  o.size = Math.max(goBoardSizes[0], Math.min(size, goBoardSizes[1]));
  o.komi = parseFloat(document.getElementById("opt-komi").value);
  o.scoring = document.getElementById("opt-scoring").value;
  o.engine_resigns = document.getElementById("opt-engine-resigns").checked;
  return o;
}

// The form for the chosen game: Gomoku's or Go's fields, Go's own sizes for Go.
function goSyncForm(switched) {
  const go = gameKind() === "go";
  for (const e of document.querySelectorAll(".go-only")) e.hidden = !go;
  for (const e of document.querySelectorAll(".gomoku-only")) e.hidden = go || gameKind() !== "gomoku";
  const size = document.getElementById("opt-size");
  for (const o of size.options) {
    const side = parseInt(o.value, 10);
    o.disabled = go && (side < goBoardSizes[0] || side > goBoardSizes[1]);
  }
  if (switched) size.value = go ? "9" : "15";
}

// A game arrives (new, loaded, restored): its Go settings in the form.
function goArrived(g) {
  const sel = document.getElementById("opt-game");
  if (sel && [...sel.options].some((o) => o.value === g.options.game)) sel.value = g.options.game;
  if (g.score) {
    document.getElementById("opt-size").value = String(g.width);
    const komi = document.getElementById("opt-komi");
    const value = String(g.score.komi);
    if (![...komi.options].some((o) => o.value === value)) {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = value;
      komi.appendChild(o);
    }
    komi.value = value;
    document.getElementById("opt-scoring").value = g.score.scoring;
  }
  document.getElementById("opt-engine-resigns").checked = g.options.engine_resigns !== false;
  goSyncForm(false);
}

// Captures, komi and rules, passes, and at the end the count and the result.
function goPanel(g) {
  const box = document.getElementById("go-score");
  const pass = document.getElementById("btn-pass");
  pass.hidden = g.pass_move === null || g.pass_move === undefined;
  pass.disabled = g.over || (!g.your_turn && !document.getElementById("opt-setup").checked);
  const resign = document.getElementById("btn-resign");
  resign.hidden = !g.resigns;
  resign.disabled = g.over || !g.at_end;
  document.getElementById("export-psq").hidden = !!g.score;  // Go records are SGF
  document.getElementById("btn-share").hidden = !!g.score;
  const s = g.score;
  box.hidden = !s;
  if (!s) return;
  const rules = `${s.scoring} scoring · komi ${s.komi} · ${s.ko} ko`;
  const caps = `captured: ● Black ${s.prisoners[0]} · ○ White ${s.prisoners[1]}`;
  let tail = s.passes === 1 ? " · one pass: a second ends the game" : "";
  if (s.result !== null) {
    const what = s.scoring === "area" ? "stones + territory" : "territory + prisoners";
    tail = ` · final count (${what}): Black ${s.points[0]}, White ${s.points[1]} + komi ${s.komi}` +
      ` → ${s.result}`;
  }
  box.innerHTML = "";
  for (const [cls, text] of [["go-rules", rules], ["go-captures", caps], ["go-count", tail.replace(/^ · /, "")]]) {
    if (!text) continue;
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    box.appendChild(span);
  }
}

// Pass: the person's move, or in set-up mode either side's (as a click on the board).
async function goPass() {
  const setup = document.getElementById("opt-setup").checked;
  if (!game || game.over || (!game.your_turn && !setup) || game.pass_move === null) return;
  if (streamKind === "engine") return;  // the engine is moving
  closeStream();
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/move`, setup ? { move: "pass", either_side: true } : { move: "pass" }));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

// Resign: the person gives up the game at the end of the line (Undo takes it back).
async function goResign() {
  if (!game || game.over || !game.at_end) return;
  if (streamKind === "engine") return;  // the engine is moving: resign on your turn
  if (!window.confirm("Resign this game?")) return;
  closeStream();  // an analysis of the position stops
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/resign`));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("btn-pass").addEventListener("click", goPass);
  document.getElementById("btn-resign").addEventListener("click", goResign);
  document.getElementById("opt-game").addEventListener("change", () => goSyncForm(true));
  document.getElementById("opt-setup").addEventListener("change", () => game && goPanel(game));
  goSyncForm(false);
});
