// zeroplay web board: plain JavaScript, no build step.
// One game per browser tab: its id lives in sessionStorage, so tabs play independent games.
"use strict";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const UNIT = 40;            // SVG units per cell
const MARGIN = 34;          // room for the coordinates
const SVGNS = "http://www.w3.org/2000/svg";

let game = null;            // the server's game JSON
let overlay = null;         // search snapshot drawn on the board
let stream = null;          // the open EventSource
let streamKind = null;      // "engine" | "analysis"
let nInRowPicked = false;   // the person chose "In a row" (else it follows the board size)
let rulePicked = false;     // the person chose the rule (else a loaded record's own applies)
let review = null;          // the open review EventSource
let preview = null;         // a principal variation drawn while the pointer is on a suggested move

// Stones in a row when the person has not chosen: 4 on 6x6 (the shipped 6x6 model's game), else 5.
// The server has the same default (engine.default_n_in_row) for requests without n_in_row; it
// sends its own (GET /api/defaults: with `zeroplay serve --model`, the model's game) at start.
let nInRowBySize = { 6: 4 };
const defaultNInRow = (size) => nInRowBySize[size] || 5;
let serverGame = "gomoku";  // the game the server plays by default (a tic-tac-toe --model: tictactoe)

const $ = (id) => document.getElementById(id);

// ---- HTTP ---------------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { detail: r.statusText }; }
  if (!r.ok) {
    const err = new Error(data && data.detail ? data.detail : `HTTP ${r.status}`);
    err.status = r.status;
    throw err;
  }
  return data;
}

function options() {
  const o = {
    color: $("opt-color").value,
    playouts: parseInt($("opt-playouts").value, 10),
    vary_opening: $("opt-vary").checked,
  };
  if ($("opt-seconds").value) o.seconds = parseFloat($("opt-seconds").value);
  if ($("opt-model").value) o.model = $("opt-model").value;
  if (gameKind() === "go") return goOptions(o);  // Go: go.js
  if (serverGame !== "gomoku" || gameKind() !== "gomoku") return o;  // the board size, line and rule are Gomoku options
  o.size = parseInt($("opt-size").value, 10);
  o.n_in_row = parseInt($("opt-n-in-row").value, 10);
  o.rule = $("opt-rule").value;
  return o;
}

// Show a playouts value in the Strength menu, also one it does not offer (the server's --playouts).
function showPlayouts(n) {
  const sel = $("opt-playouts");
  if (![...sel.options].some((o) => o.value === String(n))) {
    const o = document.createElement("option");
    o.value = String(n);
    o.textContent = `${n} playouts`;
    const after = [...sel.options].find((x) => parseInt(x.value, 10) > n);
    sel.insertBefore(o, after || null);
  }
  sel.value = String(n);
}

// Show a game's time per move (null: by playouts), also one the menu does not offer.
function showSeconds(s) {
  const sel = $("opt-seconds");
  const value = s ? String(s) : "";
  if (![...sel.options].some((o) => o.value === value)) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = `${s} s`;
    sel.appendChild(o);
  }
  sel.value = value;
}

// The models a game of this board may choose (none when the server plays its --model).
function showModels(g) {
  const sel = $("opt-model");
  while (sel.options.length > 2) sel.remove(2);
  for (const name of g.models || []) {
    const o = document.createElement("option");
    o.value = name;
    o.textContent = name;
    sel.appendChild(o);
  }
  sel.disabled = !(g.models && g.models.length) && g.options.model === null && g.engine.startsWith("model");
  sel.value = g.options.model || "";
}

// The server's defaults (its --model's game, its --playouts) in the options form.
async function applyDefaults() {
  let d;
  try {
    d = await api("GET", "/api/defaults");
  } catch (e) {
    return;  // an older server: the form's own defaults
  }
  serverGame = d.game || "gomoku";
  goSetBoardSizes(d.board_sizes);
  goSyncForm(false);
  if (d.n_in_row_by_size) {
    nInRowBySize = {};
    for (const k in d.n_in_row_by_size) nInRowBySize[parseInt(k, 10)] = d.n_in_row_by_size[k];
  }
  if (serverGame === "gomoku") {
    $("opt-size").value = String(d.size);
    showNInRow(d.n_in_row);
    $("opt-rule").value = d.rule;
  }
  for (const id of ["opt-size", "opt-n-in-row", "opt-rule"]) $(id).disabled = serverGame !== "gomoku";
  if (d.model) {  // the server's --model plays every game: its game only (Go: go.js)
    $("opt-game").value = serverGame;
    $("opt-game").disabled = true;
  }
  if (d.playouts) showPlayouts(d.playouts);
}

function setStatus(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = cls || "";
}

// ---- game flow ----------------------------------------------------------------------------------
async function newGame() {
  if (editing) endEdit();
  if (autoplay) { autoplay = false; showAutoplay(); }
  closeStream();
  overlay = null;
  try {
    setGame(await api("POST", "/api/games", options()));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function loadGame(id) {
  try {
    setGame(await api("GET", `/api/games/${id}`));
    return true;
  } catch (e) {
    return false;
  }
}

function sameBoard(a, b) {
  return !!a && !!b && a.id === b.id && a.width === b.width && a.height === b.height &&
    a.to_play === b.to_play && a.over === b.over && a.moves.length === b.moves.length && a.node === b.node &&
    a.moves.every((m, i) => m.cell === b.moves[i].cell);
}

// Answers that carry the game can arrive out of order: a review's refresh still in flight when the
// review's done event (or a click's goto) has shown a newer game. Each game shown takes a number
// (gameTicket); a refresh takes its number when it is sent, everything else when it arrives, and
// setGame drops a game numbered before the one shown (a stale refresh would put back a mid-review
// graph and marks after "review done").
let gameTickets = 0;        // the numbers given so far
let gameShownTicket = 0;    // the number of the game shown
const gameTicket = () => ++gameTickets;

function setGame(g, ticket = gameTicket()) {
  if (ticket < gameShownTicket) return;  // an older answer than the game shown
  gameShownTicket = ticket;
  // a finished analysis brings the same position back: redraw only the overlay, so that the
  // board's click targets are not replaced under the user's pointer
  const redraw = !sameBoard(game, g);
  // the options form shows a game's settings when that game arrives (new, loaded, restored);
  // later updates of the same game (a move, a finished analysis) leave what the person is
  // choosing for the next game alone
  const arrived = !game || game.id !== g.id;
  game = g;
  sessionStorage.setItem("zeroplay-game", g.id);
  if (arrived) {
    if (g.options.game === "gomoku") {
      $("opt-size").value = String(g.options.size);
      showNInRow(g.options.n_in_row);
      $("opt-rule").value = g.options.rule;
    }
    goArrived(g);
    $("opt-color").value = g.options.color;
    showPlayouts(g.options.playouts);
    showSeconds(g.options.seconds);
    $("opt-vary").checked = g.options.vary_opening !== false;
    showModels(g);
  }
  $("game-title").textContent = g.title;
  $("engine-name").textContent = "engine: " + g.engine;
  const note = $("note");
  note.hidden = !g.note;
  note.textContent = g.note || "";
  $("export-psq").href = `/api/games/${g.id}/record?format=psq`;
  $("export-sgf").href = `/api/games/${g.id}/record?format=sgf`;
  if (g.analysis && (!overlay || overlay.node !== g.analysis.node)) overlay = g.analysis;
  if (overlay && overlay.node !== g.node) overlay = null;
  preview = null;
  goPanel(g);  // pass button, captures and the count (go.js)
  if (redraw) {
    render();
  } else {
    renderOverlay();
    renderPanel();
  }
  next();
}

// What happens after each change: the engine moves, or the analysis of your position starts.
function next() {
  if (!game || stream || editing) return;
  if (game.over) {
    if (autoplay) {
      autoplay = false;
      showAutoplay();
      setStatus(`Engine vs engine: ${game.result === "draw" ? "a draw" : game.result}.`);
      return;
    }
    const resigned = game.resigned === null || game.resigned === undefined ? ""
      : game.resigned === game.human ? "You resigned. " : "zeroplay resigns. ";
    setStatus(game.result === "draw" ? "Draw." :
      resigned + (game.winner === game.human ? "You win!" : "zeroplay wins.") + " (" + game.result + ")");
    return;
  }
  if (review) {  // the review holds the engine: browse, nothing starts
    setStatus(`Reviewing… move ${game.cursor} of ${game.line.length}.`, "thinking");
    return;
  }
  if (autoplay && game.at_end) {  // engine against engine: the engine moves for either side
    startStream("engine", `/api/games/${game.id}/engine/stream?either_side=true`);
    return;
  }
  if (!game.at_end) {
    const who = game.to_play === 0 ? "Black" : "White";
    setStatus(`Move ${game.cursor} of ${game.line.length}: ${who} to play — a move here starts a variation.`);
    if ($("opt-analysis").checked && !game.analysis) {
      startStream("analysis", `/api/games/${game.id}/analyze/stream`);
    }
    return;
  }
  if (!game.your_turn && $("opt-setup").checked) {  // setting up a position: the engine waits
    setStatus(`Set-up: place a ${game.to_play === 0 ? "black" : "white"} stone (the engine waits).`);
    if ($("opt-analysis").checked && !game.analysis) {
      startStream("analysis", `/api/games/${game.id}/analyze/stream`);
    }
    return;
  }
  if (!game.your_turn) {
    startStream("engine", `/api/games/${game.id}/engine/stream`);
  } else {
    setStatus(`Your move (${game.human === 0 ? "Black" : "White"}).`);
    // once per position: the game JSON keeps the finished analysis of this position, and a new
    // one would return at once (its tree has the playouts already) and start the next, in a loop
    if ($("opt-analysis").checked && !game.analysis) {
      startStream("analysis", `/api/games/${game.id}/analyze/stream`);
    }
  }
}

function startStream(kind, url) {
  closeStream();
  streamKind = kind;
  const who = () => (game && game.to_play === 0 ? "Black" : "White");
  const thinking = () => autoplay ? `Engine vs engine: ${who()} (move ${game.cursor + 1}) is thinking…` : "zeroplay is thinking…";
  if (kind === "engine") setStatus(thinking(), "thinking");
  const es = new EventSource(url);
  stream = es;
  es.addEventListener("progress", (ev) => {
    const snap = JSON.parse(ev.data);
    if (game && snap.node !== game.node) return;  // a search of a position no longer shown
    overlay = snap;
    if (kind === "engine") setStatus(`${thinking()} ${overlay.playouts} playouts`, "thinking");
    renderOverlay();
    renderPanel();
  });
  es.addEventListener("done", (ev) => {
    const d = JSON.parse(ev.data);
    closeStream();
    if (kind === "engine") autoplayRetries = 0;
    overlay = d.search.cancelled ? null : d.search;
    setGame(d.game);
  });
  // the server refused the search (409 before the stream, or "failed" in it: the game was busy a
  // moment, or it changed under us) or the connection dropped: the engine's move is asked again
  // from the game as the server has it, half a second later; engine against engine stops after a
  // few refusals in a row rather than loop
  const refused = (detail) => {
    closeStream();
    if (detail) setStatus(detail, "error");
    if (kind !== "engine") return;
    if (autoplay && ++autoplayRetries > 3) { autoplay = false; showAutoplay(); }
    setTimeout(() => game && loadGame(game.id), 500);
  };
  es.addEventListener("failed", (ev) => refused(JSON.parse(ev.data).detail));
  es.onerror = () => {
    if (stream === es) refused(null);
  };
}

function closeStream() {
  if (stream) stream.close();
  stream = null;
  streamKind = null;
}

async function play(cell) {
  const setup = $("opt-setup").checked;
  if (!game || game.over || (!game.your_turn && !setup) || review || autoplay) return;
  if (streamKind === "engine") return;  // the engine is moving
  if (game.board[cell] !== 0) return;
  if (streamKind === "analysis") closeStream();   // the server stops the analysis for the move
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/move`, setup ? { move: cell, either_side: true } : { move: cell }));
  } catch (e) {
    // refused (409): the board shown may be behind the server's (a move the engine played as
    // engine against engine stopped): take the game as the server has it, then say why
    if (e.status === 409) await loadGame(game.id);
    if (!stream) setStatus(e.message, "error");
  }
}

async function undo() {
  if (!game) return;
  closeStream();
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/undo`));
  } catch (e) {
    // said after the game goes on (next() sets the status line), and on a refusal (409) from
    // the game as the server has it: the board may be behind (engine against engine stopping)
    if (e.status === 409) await loadGame(game.id);
    else next();
    if (!stream) setStatus(e.message, "error");
  }
}

// ---- stepping through the game ------------------------------------------------------------------
async function goto(body) {
  if (!game || editing) return;
  if (streamKind === "analysis") closeStream();   // the server stops it too
  if (stream) return;                              // the engine is moving: wait for it
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/goto`, body));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function gotoPly(ply) {
  if (!game) return;
  ply = Math.max(0, Math.min(game.line.length, ply));
  if (ply !== game.cursor) goto({ ply });
}

async function mainLine() {
  if (!game || editing) return;
  if (streamKind === "analysis") closeStream();
  if (stream) return;
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/mainline`));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

function onKey(ev) {
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || !game || editing) return;
  const to = { ArrowLeft: game.cursor - 1, ArrowRight: game.cursor + 1, Home: 0, End: game.line.length }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  gotoPly(to);
}

// ---- whole-game review --------------------------------------------------------------------------
function startReview() {
  if (!game || review || editing || autoplay) return;
  if (streamKind === "engine") {  // the engine's move holds the game; a review would be refused
    $("review-status").textContent = "wait for the engine's move, then review";
    return;
  }
  closeStream();
  const playouts = parseInt($("review-playouts").value, 10);
  const es = new EventSource(`/api/games/${game.id}/review/stream?playouts=${playouts}`);
  review = es;
  $("btn-review").hidden = true;
  $("btn-review-stop").hidden = false;
  $("review-status").textContent = `reviewing ${game.line.length + 1} positions × ${playouts} playouts…`;
  next();
  es.addEventListener("progress", (ev) => {
    const d = JSON.parse(ev.data);
    $("review-status").textContent = `reviewed ${d.done} of ${d.total} positions (${d.playouts} playouts each)`;
    refresh();
  });
  es.addEventListener("done", (ev) => {
    const d = JSON.parse(ev.data);
    endReview();
    const r = d.review;
    $("review-status").textContent = `review ${r.stopped_by === "done" ? "done" : "stopped (" + r.stopped_by + ")"}: ` +
      `${r.done} of ${r.total} positions, ${r.playouts} playouts each, ${r.seconds} s`;
    setGame(d.game);
  });
  es.addEventListener("failed", (ev) => {
    endReview();
    $("review-status").textContent = JSON.parse(ev.data).detail;
    next();
  });
  es.onerror = () => {
    if (review !== es) return;
    endReview();
    $("review-status").textContent = "the review could not start (the engine is busy in this game)";
    next();
  };
}

function endReview() {
  if (review) review.close();
  review = null;
  $("btn-review").hidden = false;
  $("btn-review-stop").hidden = true;
}

async function stopReview() {
  if (!game || !review) return;
  try { await api("POST", `/api/games/${game.id}/review/cancel`); } catch (e) { endReview(); }
}

// The game again (a review's progress): marks and graph update, the board stays.
async function refresh() {
  if (!game) return;
  const ticket = gameTicket();  // numbered when sent: a done event or a goto meanwhile is newer
  try { setGame(await api("GET", `/api/games/${game.id}`), ticket); } catch (e) { /* the next event retries */ }
}

async function loadRecord(file) {
  const text = await file.text();
  if (editing) endEdit();
  if (autoplay) { autoplay = false; showAutoplay(); }
  closeStream();
  try {
    const o = options();
    overlay = null;
    const body = { text, format: "auto", color: o.color, playouts: o.playouts, vary_opening: o.vary_opening,
                   engine_resigns: o.engine_resigns };
    if (rulePicked) body.rule = o.rule;  // else the record's rule (SGF RU, PSQ rule=), or the default
    if (o.seconds) body.seconds = o.seconds;
    // the record sets the board size: without the person's choice the server picks the default
    if (nInRowPicked) body.n_in_row = o.n_in_row;
    try {
      setGame(await api("POST", "/api/games/load", body));
    } catch (e) {
      // an SGF collection: the server names how many games it holds, the person picks one
      const many = e.status === 400 && /holds (\d+) games: choose one/.exec(e.message);
      if (!many) throw e;
      const pick = window.prompt(`${file.name} holds ${many[1]} games. Load which one (1-${many[1]})?`, "1");
      if (pick === null) return;
      body.game = parseInt(pick, 10);
      setGame(await api("POST", "/api/games/load", body));
    }
  } catch (e) {
    setStatus("Cannot load: " + e.message, "error");
  }
}

// ---- drawing ------------------------------------------------------------------------------------
function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function starPoints(w, h) {
  const pts = [];
  if (w % 2 === 1 && h % 2 === 1) pts.push([(w - 1) / 2, (h - 1) / 2]);
  if (w >= 13 && h >= 13) {
    const d = 3;
    for (const x of [d, w - 1 - d]) for (const y of [d, h - 1 - d]) pts.push([x, y]);
  }
  return pts;
}

function render() {
  if (!game) return;
  // the position editor shows its own stones (no moves, marks or analysis) on the game's board
  const G = editing ? Object.assign({}, game, { board: editing.board, moves: [], last_move: null, forbidden: [],
    winning_line: [], to_play: editTool() === 2 ? 1 : 0 }) : game;
  const svg = $("board");
  const w = G.width, h = G.height;
  const cx = (x) => MARGIN + UNIT / 2 + x * UNIT;
  const cy = (y) => MARGIN + UNIT / 2 + y * UNIT;
  const W = 2 * MARGIN + w * UNIT, H = 2 * MARGIN + h * UNIT;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.textContent = "";

  const defs = el("defs", {}, svg);
  const gb = el("radialGradient", { id: "g-black", cx: "35%", cy: "30%", r: "70%" }, defs);
  el("stop", { offset: "0%", "stop-color": "#6a6a6a" }, gb);
  el("stop", { offset: "100%", "stop-color": "#0b0b0b" }, gb);
  const gw = el("radialGradient", { id: "g-white", cx: "35%", cy: "30%", r: "75%" }, defs);
  el("stop", { offset: "0%", "stop-color": "#ffffff" }, gw);
  el("stop", { offset: "100%", "stop-color": "#cfcac0" }, gw);

  el("rect", { x: 0, y: 0, width: W, height: H, rx: 10, fill: "#deb463" }, svg);
  el("rect", { x: 4, y: 4, width: W - 8, height: H - 8, rx: 8, fill: "none", stroke: "#c79a46", "stroke-width": 2 }, svg);

  // grid and coordinates
  const grid = el("g", { stroke: "#5a4420", "stroke-width": 1.2, "stroke-linecap": "square" }, svg);
  for (let x = 0; x < w; x++) el("line", { x1: cx(x), y1: cy(0), x2: cx(x), y2: cy(h - 1) }, grid);
  for (let y = 0; y < h; y++) el("line", { x1: cx(0), y1: cy(y), x2: cx(w - 1), y2: cy(y) }, grid);
  const stars = game.star_points ? game.star_points.map((c) => [c % w, Math.floor(c / w)]) : starPoints(w, h);
  const columns = game.columns || LETTERS;  // Go: GTP's letters, no I
  for (const [x, y] of stars) el("circle", { cx: cx(x), cy: cy(y), r: 4, fill: "#5a4420" }, svg);
  const coords = el("g", { fill: "#6b5127", "font-size": 15, "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, svg);
  for (let x = 0; x < w; x++) {
    el("text", { x: cx(x), y: MARGIN / 2 + 5 }, coords).textContent = columns[x];
    el("text", { x: cx(x), y: H - MARGIN / 2 + 6 }, coords).textContent = columns[x];
  }
  for (let y = 0; y < h; y++) {
    el("text", { x: MARGIN / 2, y: cy(y) + 5 }, coords).textContent = String(h - y);
    el("text", { x: W - MARGIN / 2, y: cy(y) + 5 }, coords).textContent = String(h - y);
  }

  el("g", { id: "layer-heat", "pointer-events": "none" }, svg);

  // stones, with move numbers when asked, the last move marked and the winning line ringed
  const last = G.last_move;
  const numbers = $("opt-numbers").checked;
  const moveNumber = {};
  G.moves.forEach((m, i) => { moveNumber[m.cell] = i + 1; });
  const won = new Set(G.winning_line || []);
  G.board.forEach((v, c) => {
    if (v === 0) return;
    const x = cx(c % w), y = cy(Math.floor(c / w));
    el("circle", { cx: x + 1.5, cy: y + 2, r: UNIT * 0.45, fill: "rgba(0,0,0,0.25)" }, svg);
    el("circle", { cx: x, cy: y, r: UNIT * 0.45, fill: v === 1 ? "url(#g-black)" : "url(#g-white)",
      stroke: v === 1 ? "#000" : "#9c968a", "stroke-width": 0.8, class: v === 1 ? "stone black" : "stone white" }, svg);
    if (numbers && moveNumber[c]) {
      el("text", { x, y: y + 5, "font-size": 14, "font-weight": 600, "text-anchor": "middle", fill: v === 1 ? "#fff" : "#111",
        "font-family": "system-ui, sans-serif", class: "move-number" + (c === last ? " last" : "") }, svg).textContent = moveNumber[c];
      if (c === last) el("circle", { cx: x, cy: y, r: UNIT * 0.45 - 2, fill: "none", stroke: "#e0402e", "stroke-width": 2, class: "last-move" }, svg);
    } else if (c === last) {
      el("circle", { cx: x, cy: y, r: 5.5, fill: "#e0402e", class: "last-move" }, svg);
    }
    if (won.has(c)) el("circle", { cx: x, cy: y, r: UNIT * 0.49, class: "win-stone" }, svg);
  });

  // renju: a red cross on each point Black may not play (the API's "forbidden" field)
  for (const c of G.forbidden || []) {
    const x = cx(c % w), y = cy(Math.floor(c / w)), d = UNIT * 0.2;
    const mark = el("g", { stroke: "#c0281c", "stroke-width": 3, class: "forbidden", "data-cell": c }, svg);
    el("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d }, mark);
    el("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d }, mark);
  }

  el("g", { id: "layer-labels", "pointer-events": "none", "font-family": "system-ui, sans-serif",
    "text-anchor": "middle" }, svg);
  renderOverlay();

  // click targets (on top), with a ghost stone on hover
  const colour = G.to_play === 0 ? "url(#g-black)" : "url(#g-white)";
  for (let c = 0; c < w * h; c++) {
    if (G.board[c] !== 0 && !editing) continue;
    const x = cx(c % w), y = cy(Math.floor(c / w));
    const r = el("rect", { x: x - UNIT / 2, y: y - UNIT / 2, width: UNIT, height: UNIT, fill: "transparent",
      class: "cell", "data-cell": c, "data-move": columns[c % w] + (h - Math.floor(c / w)) }, svg);
    el("circle", { cx: x, cy: y, r: UNIT * 0.45, fill: colour, class: "hover-stone" }, svg);
    // the pointer on a suggested move shows its principal variation (the candidates lie under
    // the click targets, so the targets listen)
    r.addEventListener("mouseenter", () => {
      const m = overlay && $("opt-analysis").checked && (overlay.top || []).slice(0, 8).find((t) => t.cell === c);
      if (m) showPreview(m); else hidePreview();
    });
  }

  renderPanel();
}

// The analysis overlay alone (redrawn on every progress event; the click targets stay put).
function renderOverlay() {
  const heat = $("layer-heat"), labels = $("layer-labels");
  if (!game || !heat || !labels) return;
  heat.textContent = "";
  labels.textContent = "";
  if (editing) return;
  const w = game.width;
  const cx = (x) => MARGIN + UNIT / 2 + x * UNIT;
  const cy = (y) => MARGIN + UNIT / 2 + y * UNIT;
  const show = overlay && $("opt-analysis").checked;
  const forced = show ? forcedLine() : null;
  const line = preview || (forced ? forced.pv : null);
  renderForced(forced);
  if (line) { drawLine(labels, line, game.to_play); return; }
  if (!show) return;
  if (overlay.policy) {
    // a network's policy in blue; the search-only engine's heuristic prior greyed (no model)
    const model = overlay.policy_source === "model";
    const rgb = model ? "46,107,217" : "110,110,110";
    const maxP = Math.max(...overlay.policy, 1e-9);
    overlay.policy.forEach((p, c) => {
      if (p <= 0 || game.board[c] !== 0) return;
      const a = Math.pow(p / maxP, 0.75) * 0.6;
      if (a < 0.06) return;
      el("rect", { x: cx(c % w) - UNIT / 2 + 2, y: cy(Math.floor(c / w)) - UNIT / 2 + 2, width: UNIT - 4, height: UNIT - 4,
        rx: 6, fill: `rgba(${rgb},${a.toFixed(3)})`, class: model ? "heat" : "heat heuristic" }, heat);
    });
  }
  (overlay.top || []).slice(0, 8).forEach((m, i) => {
    if (game.board[m.cell] !== 0) return;
    const x = cx(m.cell % w), y = cy(Math.floor(m.cell / w));
    const colour = i === 0 ? "#23a559" : (i < 3 ? "#e3a21a" : "#8f8f8f");
    el("circle", { cx: x, cy: y, r: UNIT * 0.44, fill: colour, "fill-opacity": 0.88, stroke: "#fff", "stroke-width": 1.2,
      class: "candidate", "data-cell": m.cell }, labels);
    el("text", { x, y: y - 1, "font-size": 13, "font-weight": 700, fill: "#fff" }, labels).textContent = Math.round(100 * m.winrate);
    el("text", { x, y: y + 12, "font-size": 10, fill: "#fff" }, labels).textContent = compact(m.visits);
  });
}

// A proven result of the shown position: {pv, text, win}, or null.
function forcedLine() {
  if (!overlay || !overlay.proven || overlay.proven === "draw" || !overlay.pv || !overlay.pv.length) return null;
  const plies = overlay.proven_distance || overlay.pv.length;
  const win = overlay.proven === "win";
  const who = (overlay.to_play === 0) === win ? "Black" : "White";
  return { pv: overlay.pv, win, text: `${who} wins in ${Math.ceil(plies / 2)}` + (win ? "" : " (the side to move loses)") };
}

function renderForced(forced) {
  const box = $("forced");
  box.hidden = !forced;
  box.className = "forced" + (forced && !forced.win ? " loss" : "");
  box.textContent = forced ? forced.text + ": " + forced.pv.map((m) => m.text).join(" ") : "";
}

// Numbered translucent stones of a line of moves from the shown position (first: the side to move).
function drawLine(layer, line, toPlay) {
  const w = game.width;
  const cx = (x) => MARGIN + UNIT / 2 + x * UNIT;
  const cy = (y) => MARGIN + UNIT / 2 + y * UNIT;
  const seen = new Set();
  line.forEach((m, i) => {
    if (seen.has(m.cell) || game.board[m.cell] !== 0) return;
    seen.add(m.cell);
    const black = (toPlay + i) % 2 === 0;
    const x = cx(m.cell % w), y = cy(Math.floor(m.cell / w));
    el("circle", { cx: x, cy: y, r: UNIT * 0.45, fill: black ? "url(#g-black)" : "url(#g-white)", stroke: black ? "#000" : "#9c968a",
      class: "pv-stone" }, layer);
    el("text", { x, y: y + 5, "font-size": 14, "font-weight": 700, fill: black ? "#fff" : "#111", class: "pv-number" }, layer).textContent = i + 1;
  });
}

function showPreview(move) {
  preview = move.pv && move.pv.length ? move.pv : [{ cell: move.cell, text: move.text }];
  renderOverlay();
}

function hidePreview() {
  if (!preview) return;
  preview = null;
  renderOverlay();
}

function compact(n) {
  return n >= 10000 ? Math.round(n / 1000) + "k" : n >= 1000 ? (n / 1000).toFixed(1) + "k" : String(n);
}

function renderPanel() {
  // win bar: Black's win rate: the result at the end of a game, else the freshest search of the
  // shown position, else what a review or record kept for it, else the last one known before it
  const snap = overlay;
  const known = game.winrates.filter((p) => p.ply <= game.cursor);
  let black = known.length ? known[known.length - 1].black : 0.5;
  if (game.stored) black = game.stored.black_winrate;
  if (snap) black = snap.black_winrate;
  if (game.over) black = game.winner === 0 ? 1 : game.winner === 1 ? 0 : 0.5;
  $("winbar-black").style.width = (100 * black).toFixed(1) + "%";
  const b = Math.round(100 * black);
  $("winbar-text").innerHTML = `<span>● Black ${b}%</span><span>○ White ${100 - b}%</span>`;
  if (snap) {
    const who = snap.to_play === 0 ? "Black" : "White";
    $("search-info").textContent = `${snap.playouts} playouts · ${snap.visits} visits · ${snap.seconds.toFixed(2)} s · ` +
      `${who} to move: ${Math.round(100 * snap.winrate)}%` + (snap.proven ? ` · proven ${snap.proven}` : "") +
      // e.g. the search tables filled before the playouts asked for: say so, not a silent cap
      (snap.notes && snap.notes.length ? ` · ${snap.notes.join("; ")}` : "");
    $("pv").textContent = snap.pv.length ? "best line: " + snap.pv.map((m) => m.text).join(" ") : "";
    // the heat map only where the priors say something (the server leaves them out otherwise)
    $("heat-note").textContent = snap.policy ? `heat map: ${snap.policy_source === "model" ? "the model's policy"
      : "the heuristic prior, greyed (no model)"}`
      : (snap.policy_note || "");
  } else if (game.stored && game.stored.best) {
    const st = game.stored;
    $("search-info").textContent = `kept from the review: ${st.visits} visits` + (st.proven ? ` · proven ${st.proven}` : "");
    $("pv").textContent = st.pv.length ? "best line: " + st.pv.map((m) => m.text).join(" ") : "best: " + st.best.text;
  } else {
    $("search-info").textContent = game.over ? "the game is over" : "—";
    $("pv").textContent = "";
  }
  if (!snap) $("heat-note").textContent = "";
  const body = $("top-moves").querySelector("tbody");
  body.textContent = "";
  if (snap) for (const m of snap.top.slice(0, 6)) {
    const tr = document.createElement("tr");
    for (const v of [m.text, m.visits, (100 * m.winrate).toFixed(1) + "%", (100 * m.prior).toFixed(1) + "%"]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tr.addEventListener("mouseenter", () => showPreview(m));
    tr.addEventListener("mouseleave", hidePreview);
    body.appendChild(tr);
  }
  renderGraph();
  renderMoves();
  renderNav();
}

// The line as a clickable move list: the shown move highlighted, moves after it greyed, mistakes
// underlined in their colour, a move with alternatives marked with "+".
function renderMoves() {
  const moves = $("moves");
  moves.textContent = "";
  let current = null;
  game.line.forEach((m) => {
    const s = document.createElement("span");
    s.textContent = `${m.ply}.${m.text}` + (m.alternatives ? "+" : "");
    s.dataset.ply = m.ply;
    s.className = (m.mistake || "") + (m.ply === game.cursor ? " current" : m.ply > game.cursor ? " after" : "");
    const why = [];
    if (m.drop !== null) why.push(`win rate ${m.drop >= 0 ? "−" : "+"}${Math.abs(100 * m.drop).toFixed(1)} %`);
    if (m.mistake) why.push(m.mistake);
    if (m.best) why.push(`best: ${m.best}`);
    if (m.alternatives) why.push(`${m.alternatives} other move(s) tried here`);
    s.title = why.join(" · ");
    s.addEventListener("click", () => gotoPly(m.ply));
    if (m.ply === game.cursor) current = s;
    moves.appendChild(s);
  });
  if (current) current.scrollIntoView({ block: "nearest" });
  else moves.scrollTop = game.cursor === 0 ? 0 : moves.scrollHeight;
}

function renderNav() {
  const n = game.line.length;
  const slider = $("nav-slider");
  slider.max = String(n);
  slider.value = String(game.cursor);
  $("nav-pos").textContent = `move ${game.cursor} / ${n}`;
  $("nav-first").disabled = $("nav-prev").disabled = game.cursor === 0;
  $("nav-next").disabled = $("nav-last").disabled = game.cursor === n;
  $("btn-mainline").hidden = game.main_line;
  const box = $("var-next");
  box.textContent = "";
  if (game.next.length > 1) {
    box.append("next: ");
    game.next.forEach((v) => {
      const a = document.createElement("span");
      a.className = "var";
      a.textContent = v.text + (v.main ? " (main)" : "");
      a.addEventListener("click", () => goto({ node: v.node }));
      box.append(a, " ");
    });
  }
}

// Black's win rate along the line: axes (0-100 %, plies), mistakes as coloured dots, the shown
// position as a vertical line; a click goes to the nearest move.
const GRAPH = { W: 320, H: 130, left: 30, right: 8, top: 8, bottom: 20 };
const MISTAKE_COLOURS = { inaccuracy: "#e6661a", mistake: "#cc0000", blunder: "#72216b" };

function graphScale() {
  const maxPly = Math.max(game.line.length, 10);
  const g = GRAPH;
  return {
    maxPly,
    X: (ply) => g.left + (g.W - g.left - g.right) * ply / maxPly,
    Y: (b) => g.top + (g.H - g.top - g.bottom) * (1 - b),
  };
}

function renderGraph() {
  const svg = $("graph");
  svg.textContent = "";
  const g = GRAPH;
  const { maxPly, X, Y } = graphScale();
  const axes = el("g", { class: "axes", "font-size": 9, fill: "#777", "font-family": "system-ui, sans-serif" }, svg);
  for (const b of [0, 0.5, 1]) {
    el("line", { x1: g.left, y1: Y(b), x2: g.W - g.right, y2: Y(b), stroke: b === 0.5 ? "#bbb" : "#e3e3e3",
      "stroke-dasharray": b === 0.5 ? "4 3" : "" }, axes);
    el("text", { x: g.left - 4, y: Y(b) + 3, "text-anchor": "end" }, axes).textContent = `${Math.round(100 * b)}%`;
  }
  const step = Math.max(5, Math.ceil(maxPly / 6 / 5) * 5);
  for (let ply = 0; ply <= maxPly; ply += step) {
    el("line", { x1: X(ply), y1: g.H - g.bottom, x2: X(ply), y2: g.H - g.bottom + 3, stroke: "#999" }, axes);
    el("text", { x: X(ply), y: g.H - 5, "text-anchor": "middle" }, axes).textContent = String(ply);
  }
  el("line", { x1: X(game.cursor), y1: g.top, x2: X(game.cursor), y2: g.H - g.bottom, stroke: "#2e6bd9",
    "stroke-width": 1.2, class: "graph-cursor" }, svg);
  const pts = game.winrates.slice();
  if (overlay && !pts.some((p) => p.ply === overlay.ply)) pts.push({ ply: overlay.ply, black: overlay.black_winrate });
  pts.sort((a, b) => a.ply - b.ply);
  if (pts.length) {
    const d = pts.map((p, i) => `${i ? "L" : "M"}${X(p.ply).toFixed(1)},${Y(p.black).toFixed(1)}`).join(" ");
    const base = Y(0);
    el("path", { d: d + ` L${X(pts[pts.length - 1].ply).toFixed(1)},${base} L${X(pts[0].ply).toFixed(1)},${base} Z`,
      fill: "rgba(30,30,30,0.12)" }, svg);
    el("path", { d, fill: "none", stroke: "#222", "stroke-width": 1.6, class: "winrate-line" }, svg);
    for (const p of pts) el("circle", { cx: X(p.ply), cy: Y(p.black), r: 2, fill: "#222" }, svg);
  }
  const at = {};
  for (const p of pts) at[p.ply] = p.black;
  for (const m of game.line) {
    if (!m.mistake || at[m.ply] === undefined) continue;
    el("circle", { cx: X(m.ply), cy: Y(at[m.ply]), r: 4, fill: MISTAKE_COLOURS[m.mistake], class: "graph-mistake " + m.mistake },
      svg).appendChild(document.createElementNS(SVGNS, "title")).textContent = `${m.ply}. ${m.text}: ${m.mistake}`;
  }
}

function graphClick(ev) {
  if (!game) return;
  const svg = $("graph");
  const box = svg.getBoundingClientRect();
  const x = (ev.clientX - box.left) * GRAPH.W / box.width;
  const { maxPly, X } = graphScale();
  const ply = Math.round((x - GRAPH.left) / (X(1) - X(0)));
  gotoPly(Math.max(0, Math.min(maxPly, ply)));
}

// The options form after a change of board size or line length: "In a row" follows the board size
// (sizeChanged) unless the person chose it; lines longer than the board are disabled; the rule
// labels name the line length.
function syncOptions(sizeChanged) {
  const size = parseInt($("opt-size").value, 10);
  const sel = $("opt-n-in-row");
  if (sizeChanged && !nInRowPicked) sel.value = String(defaultNInRow(size));
  for (const o of sel.options) o.disabled = parseInt(o.value, 10) > size;
  if (sel.selectedIndex < 0 || sel.options[sel.selectedIndex].disabled) sel.value = String(defaultNInRow(size));
  const n = sel.value;
  const rule = $("opt-rule");
  rule.options[0].textContent = `free-style (${n}+)`;
  rule.options[1].textContent = `standard (exactly ${n})`;
}

// Show a game's line length, also one the form does not offer (the API takes 3..size).
function showNInRow(n) {
  const sel = $("opt-n-in-row");
  if (![...sel.options].some((o) => o.value === String(n))) {
    const o = document.createElement("option");
    o.value = String(n);
    o.textContent = `${n} stones`;
    sel.appendChild(o);
  }
  sel.value = String(n);
  syncOptions(false);
}

// ---- start --------------------------------------------------------------------------------------
function init() {
  const sizeSel = $("opt-size");
  for (let s = 5; s <= 25; s++) {
    const o = document.createElement("option");
    o.value = String(s);
    o.textContent = `${s} × ${s}`;
    sizeSel.appendChild(o);
  }
  sizeSel.value = "15";
  sizeSel.addEventListener("change", () => syncOptions(true));
  $("opt-n-in-row").addEventListener("change", () => {
    nInRowPicked = true;
    syncOptions(false);
  });
  syncOptions(true);
  $("board").addEventListener("click", (ev) => {
    const c = ev.target && ev.target.dataset ? ev.target.dataset.cell : undefined;
    if (c !== undefined) (editing ? editClick : play)(parseInt(c, 10));
  });
  $("btn-new").addEventListener("click", newGame);
  $("opt-rule").addEventListener("change", () => { rulePicked = true; });
  $("nav-first").addEventListener("click", () => gotoPly(0));
  $("nav-prev").addEventListener("click", () => game && gotoPly(game.cursor - 1));
  $("nav-next").addEventListener("click", () => game && gotoPly(game.cursor + 1));
  $("nav-last").addEventListener("click", () => game && gotoPly(game.line.length));
  $("nav-slider").addEventListener("change", (ev) => gotoPly(parseInt(ev.target.value, 10)));
  $("btn-mainline").addEventListener("click", mainLine);
  $("btn-review").addEventListener("click", startReview);
  $("btn-review-stop").addEventListener("click", stopReview);
  $("graph").addEventListener("click", graphClick);
  $("board").addEventListener("mouseleave", hidePreview);
  $("opt-numbers").addEventListener("change", render);
  $("opt-setup").addEventListener("change", () => { render(); next(); });
  document.addEventListener("keydown", onKey);
  $("btn-undo").addEventListener("click", undo);
  $("opt-analysis").addEventListener("change", () => {
    if (!$("opt-analysis").checked && streamKind === "analysis") closeStream();
    document.body.classList.toggle("analysis-off", !$("opt-analysis").checked);
    render();
    next();
  });
  $("load-file").addEventListener("change", (ev) => {
    if (ev.target.files.length) loadRecord(ev.target.files[0]);
    ev.target.value = "";
  });
  const saved = sessionStorage.getItem("zeroplay-game");
  initTools();
  applyDefaults()
    .then(() => openLink())
    .then((linked) => linked || (saved ? loadGame(saved) : false))
    .then((ok) => { if (!ok) newGame(); });
}

init();
