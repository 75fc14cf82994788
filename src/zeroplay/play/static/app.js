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
  };
  if (serverGame !== "gomoku") return o;  // the board size, line and rule are Gomoku options
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

// The server's defaults (its --model's game, its --playouts) in the options form.
async function applyDefaults() {
  let d;
  try {
    d = await api("GET", "/api/defaults");
  } catch (e) {
    return;  // an older server: the form's own defaults
  }
  serverGame = d.game || "gomoku";
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
  if (d.playouts) showPlayouts(d.playouts);
}

function setStatus(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = cls || "";
}

// ---- game flow ----------------------------------------------------------------------------------
async function newGame() {
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
    a.to_play === b.to_play && a.over === b.over && a.moves.length === b.moves.length &&
    a.moves.every((m, i) => m.cell === b.moves[i].cell);
}

function setGame(g) {
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
    $("opt-color").value = g.options.color;
    showPlayouts(g.options.playouts);
  }
  $("game-title").textContent = g.title;
  $("engine-name").textContent = "engine: " + g.engine;
  const note = $("note");
  note.hidden = !g.note;
  note.textContent = g.note || "";
  $("export-psq").href = `/api/games/${g.id}/record?format=psq`;
  $("export-sgf").href = `/api/games/${g.id}/record?format=sgf`;
  if (g.analysis && (!overlay || overlay.ply !== g.analysis.ply)) overlay = g.analysis;
  if (overlay && overlay.ply !== g.moves.length) overlay = null;
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
  if (!game || stream) return;
  if (game.over) {
    setStatus(game.result === "draw" ? "Draw." :
      (game.winner === game.human ? "You win!" : "zeroplay wins.") + " (" + game.result + ")");
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
  if (kind === "engine") setStatus("zeroplay is thinking…", "thinking");
  const es = new EventSource(url);
  stream = es;
  es.addEventListener("progress", (ev) => {
    overlay = JSON.parse(ev.data);
    if (kind === "engine") setStatus(`zeroplay is thinking… ${overlay.playouts} playouts`, "thinking");
    renderOverlay();
    renderPanel();
  });
  es.addEventListener("done", (ev) => {
    const d = JSON.parse(ev.data);
    closeStream();
    overlay = d.search.cancelled ? null : d.search;
    setGame(d.game);
  });
  es.addEventListener("failed", (ev) => {
    closeStream();
    setStatus(JSON.parse(ev.data).detail, "error");
  });
  es.onerror = () => {
    // the server refused the stream (e.g. 409) or the connection dropped: reload the game once
    if (stream !== es) return;
    closeStream();
    if (kind === "engine") setTimeout(() => game && loadGame(game.id), 500);
  };
}

function closeStream() {
  if (stream) stream.close();
  stream = null;
  streamKind = null;
}

async function play(cell) {
  if (!game || game.over || !game.your_turn) return;
  if (game.board[cell] !== 0) return;
  if (streamKind === "analysis") closeStream();   // the server stops the analysis for the move
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/move`, { move: cell }));
  } catch (e) {
    setStatus(e.message, "error");
  }
}

async function undo() {
  if (!game) return;
  closeStream();
  try {
    overlay = null;
    setGame(await api("POST", `/api/games/${game.id}/undo`));
  } catch (e) {
    setStatus(e.message, "error");
    next();
  }
}

async function loadRecord(file) {
  const text = await file.text();
  closeStream();
  try {
    const o = options();
    overlay = null;
    const body = { text, format: "auto", rule: o.rule, color: o.color, playouts: o.playouts };
    // the record sets the board size: without the person's choice the server picks the default
    if (nInRowPicked) body.n_in_row = o.n_in_row;
    setGame(await api("POST", "/api/games/load", body));
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
  const svg = $("board");
  const w = game.width, h = game.height;
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
  for (const [x, y] of starPoints(w, h)) el("circle", { cx: cx(x), cy: cy(y), r: 4, fill: "#5a4420" }, svg);
  const coords = el("g", { fill: "#6b5127", "font-size": 15, "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, svg);
  for (let x = 0; x < w; x++) {
    el("text", { x: cx(x), y: MARGIN / 2 + 5 }, coords).textContent = LETTERS[x];
    el("text", { x: cx(x), y: H - MARGIN / 2 + 6 }, coords).textContent = LETTERS[x];
  }
  for (let y = 0; y < h; y++) {
    el("text", { x: MARGIN / 2, y: cy(y) + 5 }, coords).textContent = String(h - y);
    el("text", { x: W - MARGIN / 2, y: cy(y) + 5 }, coords).textContent = String(h - y);
  }

  el("g", { id: "layer-heat", "pointer-events": "none" }, svg);

  // stones
  const last = game.last_move;
  game.board.forEach((v, c) => {
    if (v === 0) return;
    const x = cx(c % w), y = cy(Math.floor(c / w));
    el("circle", { cx: x + 1.5, cy: y + 2, r: UNIT * 0.45, fill: "rgba(0,0,0,0.25)" }, svg);
    el("circle", { cx: x, cy: y, r: UNIT * 0.45, fill: v === 1 ? "url(#g-black)" : "url(#g-white)",
      stroke: v === 1 ? "#000" : "#9c968a", "stroke-width": 0.8, class: v === 1 ? "stone black" : "stone white" }, svg);
    if (c === last) el("circle", { cx: x, cy: y, r: 5.5, fill: "#e0402e", class: "last-move" }, svg);
  });

  // renju: a red cross on each point Black may not play (the API's "forbidden" field)
  for (const c of game.forbidden || []) {
    const x = cx(c % w), y = cy(Math.floor(c / w)), d = UNIT * 0.2;
    const mark = el("g", { stroke: "#c0281c", "stroke-width": 3, class: "forbidden", "data-cell": c }, svg);
    el("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d }, mark);
    el("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d }, mark);
  }

  el("g", { id: "layer-labels", "pointer-events": "none", "font-family": "system-ui, sans-serif",
    "text-anchor": "middle" }, svg);
  renderOverlay();

  // click targets (on top), with a ghost stone on hover
  const colour = game.to_play === 0 ? "url(#g-black)" : "url(#g-white)";
  for (let c = 0; c < w * h; c++) {
    if (game.board[c] !== 0) continue;
    const x = cx(c % w), y = cy(Math.floor(c / w));
    const r = el("rect", { x: x - UNIT / 2, y: y - UNIT / 2, width: UNIT, height: UNIT, fill: "transparent",
      class: "cell", "data-cell": c, "data-move": LETTERS[c % w] + (h - Math.floor(c / w)) }, svg);
    el("circle", { cx: x, cy: y, r: UNIT * 0.45, fill: colour, class: "hover-stone" }, svg);
  }

  renderPanel();
}

// The analysis overlay alone (redrawn on every progress event; the click targets stay put).
function renderOverlay() {
  const heat = $("layer-heat"), labels = $("layer-labels");
  if (!game || !heat || !labels) return;
  heat.textContent = "";
  labels.textContent = "";
  const w = game.width;
  const cx = (x) => MARGIN + UNIT / 2 + x * UNIT;
  const cy = (y) => MARGIN + UNIT / 2 + y * UNIT;
  const show = overlay && $("opt-analysis").checked;
  if (!show) return;
  if (overlay.policy) {
    const maxP = Math.max(...overlay.policy, 1e-9);
    overlay.policy.forEach((p, c) => {
      if (p <= 0 || game.board[c] !== 0) return;
      const a = Math.pow(p / maxP, 0.75) * 0.6;
      if (a < 0.06) return;
      el("rect", { x: cx(c % w) - UNIT / 2 + 2, y: cy(Math.floor(c / w)) - UNIT / 2 + 2, width: UNIT - 4, height: UNIT - 4,
        rx: 6, fill: `rgba(46,107,217,${a.toFixed(3)})`, class: "heat" }, heat);
    });
  }
  (overlay.top || []).slice(0, 8).forEach((m, i) => {
    if (game.board[m.cell] !== 0) return;
    const x = cx(m.cell % w), y = cy(Math.floor(m.cell / w));
    const colour = i === 0 ? "#23a559" : (i < 3 ? "#e3a21a" : "#8f8f8f");
    el("circle", { cx: x, cy: y, r: UNIT * 0.44, fill: colour, "fill-opacity": 0.88, stroke: "#fff", "stroke-width": 1.2, class: "candidate" }, labels);
    el("text", { x, y: y - 1, "font-size": 13, "font-weight": 700, fill: "#fff" }, labels).textContent = Math.round(100 * m.winrate);
    el("text", { x, y: y + 12, "font-size": 10, fill: "#fff" }, labels).textContent = compact(m.visits);
  });
}

function compact(n) {
  return n >= 10000 ? Math.round(n / 1000) + "k" : n >= 1000 ? (n / 1000).toFixed(1) + "k" : String(n);
}

function renderPanel() {
  // win bar: Black's win rate from the freshest search
  const snap = overlay;
  const black = snap ? snap.black_winrate : (game.winrates.length ? game.winrates[game.winrates.length - 1].black : 0.5);
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
  } else {
    $("search-info").textContent = "—";
    $("pv").textContent = "";
  }
  const body = $("top-moves").querySelector("tbody");
  body.textContent = "";
  if (snap) for (const m of snap.top.slice(0, 6)) {
    const tr = document.createElement("tr");
    for (const v of [m.text, m.visits, (100 * m.winrate).toFixed(1) + "%", (100 * m.prior).toFixed(1) + "%"]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  renderGraph();
  const moves = $("moves");
  moves.textContent = "";
  game.moves.forEach((m, i) => {
    const s = document.createElement("span");
    s.textContent = `${i + 1}.${m.text}`;
    moves.appendChild(s);
  });
  moves.scrollTop = moves.scrollHeight;
}

function renderGraph() {
  const svg = $("graph");
  svg.textContent = "";
  const W = 300, H = 110, pad = 6;
  el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, stroke: "#ccc", "stroke-dasharray": "4 3" }, svg);
  const pts = game.winrates.slice();
  if (overlay && !pts.some((p) => p.ply === overlay.ply)) pts.push({ ply: overlay.ply, black: overlay.black_winrate });
  pts.sort((a, b) => a.ply - b.ply);
  const maxPly = Math.max(game.moves.length, 10, ...pts.map((p) => p.ply));
  const X = (ply) => pad + (W - 2 * pad) * ply / maxPly;
  const Y = (b) => pad + (H - 2 * pad) * (1 - b);
  if (pts.length) {
    const d = pts.map((p, i) => `${i ? "L" : "M"}${X(p.ply).toFixed(1)},${Y(p.black).toFixed(1)}`).join(" ");
    el("path", { d: d + ` L${X(pts[pts.length - 1].ply).toFixed(1)},${H} L${X(pts[0].ply).toFixed(1)},${H} Z`, fill: "rgba(30,30,30,0.12)" }, svg);
    el("path", { d, fill: "none", stroke: "#222", "stroke-width": 1.6, class: "winrate-line" }, svg);
    for (const p of pts) el("circle", { cx: X(p.ply), cy: Y(p.black), r: 2.2, fill: "#222" }, svg);
  }
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
    if (c !== undefined) play(parseInt(c, 10));
  });
  $("btn-new").addEventListener("click", newGame);
  $("btn-undo").addEventListener("click", undo);
  $("opt-analysis").addEventListener("change", () => {
    if (!$("opt-analysis").checked && streamKind === "analysis") closeStream();
    render();
    next();
  });
  $("load-file").addEventListener("change", (ev) => {
    if (ev.target.files.length) loadRecord(ev.target.files[0]);
    ev.target.value = "";
  });
  const saved = sessionStorage.getItem("zeroplay-game");
  applyDefaults()
    .then(() => (saved ? loadGame(saved) : false))
    .then((ok) => { if (!ok) newGame(); });
}

init();
