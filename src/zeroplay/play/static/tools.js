// zeroplay web board, the tools beside play and review: engine against engine, the position
// editor (free set-up) and shareable links. Loaded before app.js, whose globals (game, api,
// render, setGame, next, ...) these functions use when called.
"use strict";

// ---- engine against engine ----------------------------------------------------------------------
// While on, next() asks the engine for every move (?either_side=true); each search streams and is
// stored like any other, so the graph and the move list fill in as the game goes.
let autoplay = false;
let autoplayRetries = 0;    // refused engine streams in a row (app.js startStream)

function startAutoplay() {
  if (!game || game.over || review || editing) return;
  if (!game.at_end) {
    setStatus("Engine vs engine plays on from the end of the line: go to its end first.", "error");
    return;
  }
  if (streamKind === "analysis") closeStream();
  autoplay = true;
  autoplayRetries = 0;
  showAutoplay();
  next();
}

// Stop: the search under way is dropped (closing its stream stops it on the server) and the game
// goes on as a normal game: the person's move, or the engine's on its own side. The search may
// have played its move before the server heard of the stop, and the closed stream never brings
// that move: the game is taken again from the server once its search has wound down.
function stopAutoplay() {
  if (!autoplay) return;
  autoplay = false;
  showAutoplay();
  if (streamKind !== "engine") {
    next();
    return;
  }
  closeStream();
  setStatus("Stopping…", "thinking");
  settleAfterStop(game.id, 0);
}

const STOP_POLL_MS = 100;
const STOP_POLLS = 50;      // at most 5 s, then the game as it stands

async function settleAfterStop(id, polls) {
  const ticket = gameTicket();  // numbered when sent: a move the person makes meanwhile is newer
  let g;
  try {
    g = await api("GET", `/api/games/${id}`);
  } catch (e) {
    next();
    return;
  }
  if (!game || game.id !== id || autoplay || stream) return;  // the person moved on meanwhile
  if (g.busy && polls < STOP_POLLS) {
    setTimeout(() => settleAfterStop(id, polls + 1), STOP_POLL_MS);
    return;
  }
  setGame(g, ticket);
}

function showAutoplay() {
  $("btn-autoplay").hidden = autoplay;
  $("btn-autoplay-stop").hidden = !autoplay;
  document.body.classList.toggle("autoplay", autoplay);
}

// ---- the position editor: stones of either colour anywhere, then the side to move ---------------
let editing = null;         // {board: cells (0 empty, 1 Black, 2 White), toPlay} while editing

function startEdit() {
  if (!game || review) return;
  if (autoplay) { autoplay = false; showAutoplay(); }
  closeStream();
  overlay = null;
  preview = null;
  editing = { board: game.board.slice() };
  $("edit-to-play").value = game.to_play === 0 ? "black" : "white";
  $("edit-bar").hidden = false;
  $("btn-edit").disabled = true;
  document.body.classList.add("editing");
  setStatus("Edit: click a point to place the chosen stone (click it again to take it off).");
  render();
  editInfo();
}

function editTool() {
  const picked = document.querySelector('input[name="edit-tool"]:checked');
  return picked ? parseInt(picked.value, 10) : 1;
}

function editClick(cell) {
  const tool = editTool();
  editing.board[cell] = editing.board[cell] === tool ? 0 : tool;
  render();
  editInfo();
}

function editInfo() {
  if (!editing) return;
  const nb = editing.board.filter((v) => v === 1).length, nw = editing.board.filter((v) => v === 2).length;
  $("edit-info").textContent = `${nb} black, ${nw} white stone(s); ${$("edit-to-play").value} to move`;
  $("edit-info").className = "muted";
}

function endEdit() {
  editing = null;
  $("edit-bar").hidden = true;
  $("btn-edit").disabled = false;
  document.body.classList.remove("editing");
}

// A new game from the edited position (same board, line length, rule and engine settings).
async function finishEdit() {
  if (!editing || !game) return;
  const black = [], white = [];
  editing.board.forEach((v, c) => { if (v === 1) black.push(c); else if (v === 2) white.push(c); });
  const body = options();
  if (game.options.game === "gomoku") {
    body.size = game.options.size;
    body.n_in_row = game.options.n_in_row;
    body.rule = game.options.rule;
  }
  body.setup = { black, white, to_play: $("edit-to-play").value };
  try {
    const g = await api("POST", "/api/games", body);
    endEdit();
    overlay = null;
    setGame(g);
  } catch (e) {
    $("edit-info").textContent = e.message;
    $("edit-info").className = "error";
  }
}

function cancelEdit() {
  endEdit();
  render();
  next();
}

// ---- shareable links: #size=9&n=5&rule=freestyle&ab=e5.f5&aw=d6&pl=w&moves=e5.d6&ply=2 -----------
// ab / aw / pl: a set-up start (its stones and the side to move); moves: the line from there.
function cellText(c) {
  return LETTERS[c % game.width] + (game.height - Math.floor(c / game.width));
}

function shareLink() {
  if (!game) return;
  const o = game.options;
  const params = new URLSearchParams();
  if (o.game === "gomoku") {
    params.set("size", o.size);
    params.set("n", o.n_in_row);
    params.set("rule", o.rule);
  }
  if (game.setup) {
    params.set("ab", game.setup.black.map(cellText).join("."));
    params.set("aw", game.setup.white.map(cellText).join("."));
    params.set("pl", game.setup.to_play === 0 ? "b" : "w");
  }
  params.set("moves", game.line.map((m) => m.text).join("."));
  params.set("ply", game.cursor);
  const url = location.origin + location.pathname + "#" + params.toString();
  history.replaceState(null, "", url);
  const box = $("share-url");
  box.hidden = false;
  box.value = url;
  box.select();
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
}

// The game a link names, as a record the server reads: PSQ for a line from the empty board, SGF
// (AB/AW/PL) for one from a set-up position; null when the link names none. Bad links are the
// server's to refuse, with its message.
function linkedRecord(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  if (!params.has("moves") && !params.has("ab") && !params.has("aw")) return null;
  const size = parseInt(params.get("size") || "15", 10);
  const texts = (key) => (params.get(key) || "").split(".").filter((m) => m);
  // a move "h8" (column letter, row from the bottom) as {x, y} from the top-left, or null
  const point = (text) => {
    const m = /^([a-z])(\d{1,2})$/.exec(text);
    if (!m) return null;
    const x = LETTERS.indexOf(m[1]), y = size - parseInt(m[2], 10);
    return x < size && y >= 0 && y < size ? { x, y } : null;
  };
  const bad = [...texts("ab"), ...texts("aw"), ...texts("moves")].find((t) => !point(t));
  if (bad !== undefined) return { error: `not a move on a ${size}x${size} board: ${bad.slice(0, 12)}` };
  const body = { color: $("opt-color").value };
  if (params.has("ab") || params.has("aw") || params.has("pl")) {
    const sgf = (t) => { const p = point(t); return LETTERS[p.x] + LETTERS[p.y]; };
    const first = params.get("pl") === "w" ? 1 : 0;
    let text = `(;FF[4]GM[4]SZ[${size}]`;
    if (texts("ab").length) text += "AB" + texts("ab").map((t) => `[${sgf(t)}]`).join("");
    if (texts("aw").length) text += "AW" + texts("aw").map((t) => `[${sgf(t)}]`).join("");
    text += `PL[${first ? "W" : "B"}]`;
    texts("moves").forEach((t, i) => { text += `;${(first + i) % 2 === 0 ? "B" : "W"}[${sgf(t)}]`; });
    body.text = text + ")";
    body.format = "sgf";
  } else {
    const lines = [`Piskvorky ${size}x${size}, 11:11, 0`];
    for (const t of texts("moves")) {
      const p = point(t);
      lines.push(`${p.x + 1},${p.y + 1},0`);
    }
    lines.push("-1");
    body.text = lines.join("\n") + "\n";
    body.format = "psq";
  }
  if (params.has("n")) body.n_in_row = parseInt(params.get("n"), 10);
  if (params.has("rule")) body.rule = params.get("rule");
  return { body, ply: params.has("ply") ? parseInt(params.get("ply"), 10) : null };
}

async function openLink() {
  const link = linkedRecord(location.hash);
  if (!link) return false;
  try {
    if (link.error) throw new Error(link.error);
    setGame(await api("POST", "/api/games/load", link.body));
    if (link.ply !== null && link.ply !== game.cursor) await goto({ ply: link.ply });
  } catch (e) {
    setStatus("Cannot open the link: " + e.message, "error");
    return false;
  }
  return true;
}

function initTools() {
  $("btn-autoplay").addEventListener("click", startAutoplay);
  $("btn-autoplay-stop").addEventListener("click", stopAutoplay);
  $("btn-edit").addEventListener("click", startEdit);
  $("btn-edit-done").addEventListener("click", finishEdit);
  $("btn-edit-cancel").addEventListener("click", cancelEdit);
  $("btn-edit-clear").addEventListener("click", () => {
    if (!editing) return;
    editing.board.fill(0);
    render();
    editInfo();
  });
  $("edit-to-play").addEventListener("change", editInfo);
  for (const r of document.querySelectorAll('input[name="edit-tool"]')) r.addEventListener("change", () => editing && render());
  $("btn-share").addEventListener("click", shareLink);
}
