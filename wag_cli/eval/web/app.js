// WAG human evaluation page (DESIGN.md §10 "Human evaluation"). Talks to `wag eval human serve`:
// GET /api/next?rater=R (progress + the first unranked query), POST /api/rank (store, get the next one).
// Answers are anonymised (labels A, B, ...) and shown in the order the server shuffled for this rater.
// Keyboard: 1..k give answer k the next rank in the current criterion, Backspace undoes, Esc clears,
// ArrowUp/ArrowDown change criterion, Enter submits. Every answer text is inserted as text, never HTML.
"use strict";

const state = { rater: null, item: null, criteria: [], current: 0, orders: {} };
const $ = (id) => document.getElementById(id);

function setStatus(text, ok) {
  $("status").textContent = text || "";
  $("status").className = ok ? "ok" : "";
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function askRater() {
  $("rater-form").hidden = false;
  $("task").hidden = true;
  $("rater-input").focus();
}

function start(rater) {
  state.rater = rater;
  localStorage.setItem("wag-rater", rater);
  const url = new URL(window.location.href);
  url.searchParams.set("rater", rater);
  history.replaceState(null, "", url);
  $("rater-form").hidden = true;
  $("who").textContent = "rater " + rater;
  api("/api/next?rater=" + encodeURIComponent(rater)).then(show).catch((e) => { askRater(); setStatus(e.message); });
}

function show(data) {
  if (!data.item) {
    $("task").hidden = true;
    $("finished").hidden = false;
    $("progress").textContent = data.done + " of " + data.total + " ranked";
    return;
  }
  const item = data.item;
  state.item = item;
  state.criteria = item.criteria;
  state.current = 0;
  state.orders = {};
  for (const c of item.criteria) state.orders[c] = [];
  $("progress").textContent = item.position + " of " + data.total;
  $("question").textContent = item.question;
  $("context").textContent = "Person " + item.subject + (item.dataset ? " (" + item.dataset + ")" : "") +
    " · period: " + item.period;
  const answers = $("answers");
  answers.replaceChildren();
  for (const a of item.answers) {
    const card = document.createElement("article");
    card.className = "answer";
    card.tabIndex = 0;
    card.dataset.label = a.label;
    const h = document.createElement("h3");
    const name = document.createElement("span");
    name.textContent = "[" + a.key + "] Answer " + a.label;
    const badge = document.createElement("span");
    badge.className = "badge";
    h.append(name, badge);
    const text = document.createElement("div");
    text.className = "text";
    text.textContent = a.text;
    card.append(h, text);
    card.addEventListener("click", () => place(a.label));
    answers.append(card);
  }
  $("task").hidden = false;
  $("finished").hidden = true;
  render();
  window.scrollTo(0, 0);
}

function labels() { return state.item.answers.map((a) => a.label); }

function place(label) {
  const crit = state.criteria[state.current];
  const order = state.orders[crit];
  if (order.includes(label)) { setStatus("Answer " + label + " already has a rank on " + crit); return; }
  order.push(label);
  const rest = labels().filter((l) => !order.includes(l));
  if (rest.length === 1) order.push(rest[0]);   // the last answer's rank is determined
  setStatus("");
  render();
}

function render() {
  const list = $("criteria");
  list.replaceChildren();
  state.criteria.forEach((crit, i) => {
    const li = document.createElement("li");
    const order = state.orders[crit];
    li.className = "criterion" + (i === state.current ? " current" : "") +
      (crit === "Overall" ? " required" : "") + (order.length === labels().length ? " complete" : "");
    li.dataset.criterion = crit;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = crit;
    const shown = document.createElement("span");
    shown.className = "order";
    shown.textContent = order.length ? order.map((l, j) => (j + 1) + ". " + l).join("  ") : "—";
    const clear = document.createElement("button");
    clear.type = "button";
    clear.textContent = "clear";
    clear.addEventListener("click", (ev) => { ev.stopPropagation(); state.orders[crit] = []; render(); });
    li.append(name, shown, clear);
    li.addEventListener("click", () => { state.current = i; render(); });
    list.append(li);
  });
  const crit = state.criteria[state.current];
  for (const card of document.querySelectorAll(".answer")) {
    const pos = state.orders[crit].indexOf(card.dataset.label);
    card.querySelector(".badge").textContent = pos >= 0 ? crit + " rank " + (pos + 1) : "";
  }
}

function submit() {
  const k = labels().length;
  const rankings = {};
  for (const crit of state.criteria) {
    const order = state.orders[crit];
    if (order.length === 0) continue;
    if (order.length !== k) { setStatus(crit + ": rank all " + k + " answers or clear it"); return; }
    rankings[crit] = order;
  }
  if (!rankings.Overall) { setStatus("Overall is required: rank every answer on Overall"); return; }
  const item = state.item;
  api("/api/rank", { rater: state.rater, experiment: item.experiment, query_id: item.query_id, rankings })
    .then((data) => { show(data); setStatus("saved", true); })
    .catch((e) => setStatus(e.message));
}

document.addEventListener("keydown", (ev) => {
  if (!state.item || $("task").hidden || ev.target === $("rater-input")) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const crit = state.criteria[state.current];
  if (/^[1-9]$/.test(ev.key)) {
    const a = state.item.answers.find((x) => x.key === ev.key);
    if (a) { place(a.label); ev.preventDefault(); }
  } else if (ev.key === "Backspace") {
    state.orders[crit].pop(); render(); ev.preventDefault();
  } else if (ev.key === "Escape") {
    state.orders[crit] = []; render();
  } else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    const step = ev.key === "ArrowDown" ? 1 : -1;
    state.current = (state.current + step + state.criteria.length) % state.criteria.length;
    render(); ev.preventDefault();
  } else if (ev.key === "Enter") {
    submit(); ev.preventDefault();
  }
});

$("rater-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const r = $("rater-input").value.trim();
  if (r) start(r);
});
$("submit").addEventListener("click", submit);

const fromUrl = new URL(window.location.href).searchParams.get("rater");
const remembered = fromUrl || localStorage.getItem("wag-rater");
if (remembered) start(remembered); else askRater();
