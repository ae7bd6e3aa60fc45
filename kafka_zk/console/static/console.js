// The kafka-zk console's page: fetches /api/state (answered when the cluster changes, else every ~2 s),
// re-renders the current view without a reload, draws charts as inline SVG, and posts operator actions.
"use strict";

const app = { version: null, snap: null, metrics: null, topic: null, topicName: null, formsFor: null };
const COLORS = ["#2f6fdb", "#e0662d", "#1f8a4c", "#9b4dca", "#c9302c", "#178a8a", "#8a6d1f"];

function esc(value) {
  return String(value === null || value === undefined ? "" : value)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
function num(value) { return value === null || value === undefined ? "-" : Number(value).toLocaleString("en-US"); }
function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, "")) || "brokers";
  const slash = hash.indexOf("/");
  return slash < 0 ? { page: hash, arg: null } : { page: hash.slice(0, slash), arg: hash.slice(slash + 1) };
}

// -- data ---------------------------------------------------------------------------------------

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(url + ": HTTP " + response.status);
  return response.json();
}

async function loop() {
  for (;;) {
    try {
      const url = "/api/state" + (app.version === null ? "" : "?after=" + app.version);
      const snap = await getJSON(url);
      app.snap = snap;
      app.version = snap.version;
      const r = route();
      if (r.page === "charts") app.metrics = await getJSON("/api/metrics");
      if (r.page === "topic") await loadTopic(r.arg);  // all its partitions, and its configs
      setStatus(snap);
      render();
      await sleep(150);
    } catch (error) {
      setStatus(null, error);
      await sleep(2000);
    }
  }
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

async function loadTopic(name) {
  app.topicName = name;
  try { app.topic = await getJSON("/api/topics/" + encodeURIComponent(name)); } catch (e) { app.topic = null; }
}

function setStatus(snap, error) {
  const status = document.getElementById("status");
  if (error || !snap) {
    status.textContent = "console unreachable: " + (error ? error.message : "");
    status.className = "status stale";
    return;
  }
  const when = snap.updated_at ? new Date(snap.updated_at * 1000).toLocaleTimeString() : "never";
  status.textContent = (snap.state.error ? "cluster read failed: " + snap.state.error + " · " : "") + "updated " + when;
  status.className = "status" + (snap.state.error ? " stale" : "");
}

// -- rendering ----------------------------------------------------------------------------------

function render() {
  const r = route();
  document.querySelectorAll("nav a").forEach((a) => {
    a.classList.toggle("active", a.dataset.route === r.page || (r.page === "topic" && a.dataset.route === "topics"));
  });
  const views = { brokers: brokersView, topics: topicsView, topic: topicView, groups: groupsView,
                  reassignments: reassignmentsView, charts: chartsView };
  const view = views[r.page] || brokersView;
  if (!app.snap) return;
  document.getElementById("view").innerHTML = view(app.snap, r.arg);
  const formsKey = r.page + "/" + (r.arg || "");
  if (app.formsFor !== formsKey) {  // forms are drawn once per page, so typing survives the refreshes
    app.formsFor = formsKey;
    const forms = { brokers: brokersForms, topics: topicsForms, topic: topicForms,
                    reassignments: reassignmentForms }[r.page];
    document.getElementById("forms").innerHTML = forms ? forms(r.arg) : "";
  }
}

function brokerLabel(snap, id) {
  const broker = snap.state.brokers.find((b) => b.id === id);
  return broker && !broker.alive ? '<span class="dead-replica" title="broker ' + id + ' is down">' + id + "</span>"
                                 : String(id);
}
function ids(snap, list) { return list.map((id) => brokerLabel(snap, id)).join(","); }

function brokersView(snap) {
  const s = snap.state;
  const alive = s.brokers.filter((b) => b.alive).length;
  let html = "<h2>Brokers</h2>" + summary([
    ["Brokers alive", alive + " / " + s.brokers.length],
    ["Controller", s.controller.id === null ? "none" : "broker " + s.controller.id],
    ["Controller epoch", s.controller.epoch === null ? "-" : s.controller.epoch],
    ["Topics", s.topics.length],
  ]);
  html += '<table id="brokers"><tr><th>Id</th><th>State</th><th>Listeners</th><th>Rack</th><th>Leaders</th>' +
          "<th>Replicas</th></tr>";
  for (const b of s.brokers) {
    html += '<tr data-broker="' + b.id + '"><td class="num">' + b.id + "</td><td>" +
      (b.alive ? '<span class="badge alive">alive</span>' : '<span class="badge dead">down</span>') +
      (b.controller ? ' <span class="badge controller">controller, epoch ' + esc(s.controller.epoch) + "</span>" : "") +
      "</td><td>" + esc(b.listeners.join(", ") || "-") + "</td><td>" + esc(b.rack || "-") +
      '</td><td class="num">' + num(b.leaders) + '</td><td class="num">' + num(b.replicas) + "</td></tr>";
  }
  return html + "</table>";
}

function summary(items) {
  return '<div class="summary">' + items.map(([k, v]) => "<div>" + esc(k) + "<b>" + esc(v) + "</b></div>").join("") +
         "</div>";
}

function partitionRows(snap, topic) {
  let html = "";
  for (const p of topic.partitions) {
    const cls = p.offline ? "offline" : (p.under_replicated ? "under-replicated" : "");
    const flags = [];
    if (p.offline) flags.push('<span class="badge bad">offline</span>');
    if (p.under_replicated) flags.push('<span class="badge warn">under-replicated</span>');
    if (!p.preferred_leader && !p.offline) flags.push('<span class="badge">not preferred leader</span>');
    if (p.adding.length || p.removing.length) flags.push('<span class="badge controller">reassigning</span>');
    html += '<tr class="' + cls + '" data-partition="' + esc(topic.name + "-" + p.partition) + '"><td>' +
      esc(topic.name) + '</td><td class="num">' + p.partition + '</td><td class="num">' +
      (p.leader < 0 ? "none" : brokerLabel(snap, p.leader)) + "</td><td>" + ids(snap, p.replicas) + "</td><td>" +
      ids(snap, p.isr) + "</td><td>" + flags.join(" ") + "</td></tr>";
  }
  return html;
}
const PARTITION_HEAD = "<tr><th>Topic</th><th>Partition</th><th>Leader</th><th>Replicas</th><th>ISR</th>" +
                       "<th>Health</th></tr>";

function topicsView(snap) {
  const s = snap.state;
  const under = s.topics.reduce((n, t) => n + t.under_replicated, 0);
  const offline = s.topics.reduce((n, t) => n + t.offline, 0);
  let html = "<h2>Topics</h2>" + summary([["Topics", s.topics.length],
    ["Partitions", s.partitions_complete ? s.topics.reduce((n, t) => n + t.partitions.length, 0)
                                         : s.partition_count],
    ["Under-replicated", under], ["Offline", offline]]);
  html += '<table id="topics"><tr><th>Topic</th><th class="num">Partitions</th><th class="num">Replication</th>' +
          '<th class="num">Under-replicated</th><th class="num">Offline</th><th class="num">Not preferred</th></tr>';
  for (const t of s.topics) {
    const cls = t.offline ? "offline" : (t.under_replicated ? "under-replicated" : "");
    html += '<tr class="' + cls + '" data-topic="' + esc(t.name) + '"><td><a href="#topic/' +
      encodeURIComponent(t.name) + '">' + esc(t.name) + "</a>" +
      (t.marked_for_deletion ? ' <span class="badge bad">deleting</span>' : "") +
      (t.internal ? ' <span class="muted">internal</span>' : "") + '</td><td class="num">' + t.partitions.length +
      '</td><td class="num">' + t.replication_factor + '</td><td class="num">' + t.under_replicated +
      '</td><td class="num">' + t.offline + '</td><td class="num">' + t.not_preferred + "</td></tr>";
  }
  html += "</table><h2>Partitions</h2>";
  if (!s.partitions_complete) {
    html += '<p class="muted">' + num(s.partition_count) + " partitions: only those that need attention are " +
            "listed here (each topic's page lists all of its own).</p>";
  }
  html += '<table id="partitions">' + PARTITION_HEAD;
  for (const t of s.topics) if (!t.internal) html += partitionRows(snap, t);
  return html + "</table>";
}

function topicView(snap, name) {
  const detail = app.topicName === name ? app.topic : null;
  const topic = detail || snap.state.topics.find((t) => t.name === name);
  if (!topic) return "<h2>Topic " + esc(name) + '</h2><p class="muted">No such topic (yet).</p>';
  let html = "<h2>Topic " + esc(name) + "</h2>" + summary([["Partitions", topic.partitions.length],
    ["Replication", topic.replication_factor], ["Under-replicated", topic.under_replicated],
    ["Offline", topic.offline]]);
  html += '<table id="partitions">' + PARTITION_HEAD + partitionRows(snap, topic) + "</table>";
  html += "<h3>Config overrides (/config/topics/" + esc(name) + ")</h3>";
  if (!detail) return html + '<p class="muted">loading…</p>';
  const overrides = Object.entries(detail.overrides || {});
  html += overrides.length ? '<table id="overrides"><tr><th>Name</th><th>Value</th></tr>' +
    overrides.map(([k, v]) => "<tr><td>" + esc(k) + "</td><td>" + esc(v) + "</td></tr>").join("") + "</table>"
    : '<p class="muted">none</p>';
  html += "<details><summary>Every config in force (" + detail.configs.length + ")</summary>" +
    '<table id="configs"><tr><th>Name</th><th>Value</th><th></th></tr>' + detail.configs.map((c) =>
      "<tr><td>" + esc(c.name) + "</td><td>" + (c.sensitive ? "(sensitive)" : esc(c.value)) + "</td><td>" +
      (c.default ? '<span class="muted">default</span>' : "override") + "</td></tr>").join("") +
    "</table></details>";
  return html;
}

function groupsView(snap) {
  let html = "<h2>Consumer groups</h2>";
  if (snap.groups_error) html += '<p class="badge bad">' + esc(snap.groups_error) + "</p>";
  if (!snap.groups.length) return html + '<p class="muted">No consumer groups.</p>';
  html += '<table id="groups"><tr><th>Group</th><th>State</th><th class="num">Members</th>' +
          '<th class="num">Coordinator</th><th class="num">Total lag</th></tr>';
  for (const g of snap.groups) {
    html += '<tr data-group="' + esc(g.group) + '"><td><a href="#groups/' + encodeURIComponent(g.group) + '">' +
      esc(g.group) + "</a></td><td>" + esc(g.state) + '</td><td class="num">' + g.members.length +
      '</td><td class="num">' + esc(g.coordinator === undefined ? "-" : g.coordinator) + '</td><td class="num">' +
      num(g.total_lag) + "</td></tr>";
  }
  html += "</table>";
  for (const g of snap.groups) {
    html += "<h3>" + esc(g.group) + ' <span class="muted">' + esc(g.state) + "</span></h3>";
    if (g.error) { html += '<p class="badge bad">' + esc(g.error) + "</p>"; continue; }
    html += '<table class="lag" data-group="' + esc(g.group) + '"><tr><th>Topic</th><th class="num">Partition</th>' +
      '<th class="num">Committed</th><th class="num">Log end</th><th class="num">Lag</th><th>Member</th>' +
      "<th>Client</th><th>Host</th></tr>";
    for (const p of g.partitions) {
      html += '<tr data-partition="' + esc(p.topic + "-" + p.partition) + '"><td>' + esc(p.topic) +
        '</td><td class="num">' + p.partition + '</td><td class="num">' + num(p.committed) + '</td><td class="num">' +
        num(p.log_end) + '</td><td class="num lag-value">' + num(p.lag) + "</td><td>" + esc(p.member || "-") +
        "</td><td>" + esc(p.client_id || "-") + "</td><td>" + esc(p.host || "-") + "</td></tr>";
    }
    html += "</table>";
  }
  return html;
}

function reassignmentsView(snap) {
  const rows = snap.state.reassignments;
  let html = "<h2>Reassignments in progress</h2>";
  if (snap.state.reassignment_error) html += '<p class="muted">' + esc(snap.state.reassignment_error) + "</p>";
  if (!rows.length) return html + '<p class="muted" id="no-reassignments">None.</p>';
  html += '<table id="reassignments"><tr><th>Partition</th><th>Replicas</th><th>Target</th><th>Adding</th>' +
          "<th>Removing</th><th>ISR</th><th>Progress</th><th>Seen in</th></tr>";
  for (const r of rows) {
    html += "<tr><td>" + esc(r.topic + "-" + r.partition) + "</td><td>" + ids(snap, r.replicas) + "</td><td>" +
      ids(snap, r.target) + "</td><td>" + ids(snap, r.adding) + "</td><td>" + ids(snap, r.removing) + "</td><td>" +
      ids(snap, r.isr) + '</td><td><span class="progress"><span style="width:' + Math.round(r.progress * 100) +
      '%"></span></span> ' + r.in_sync + "/" + r.of + " in sync</td><td>" + esc(r.source) + "</td></tr>";
  }
  return html + "</table>";
}

// -- charts -------------------------------------------------------------------------------------

function chartsView() {
  const m = app.metrics;
  if (!m) return '<h2>Charts</h2><p class="muted">loading…</p>';
  let html = "<h2>Charts</h2>";
  const bad = m.scrapes.filter((s) => !s.ok);
  html += '<p class="muted">' + (m.scrapes.length ? m.scrapes.length + " metrics endpoint(s)" +
    (bad.length ? ", not answering: " + bad.map((s) => esc(s.url)).join(", ") : "") :
    "No --metrics endpoints: only the console's own consumer lag is charted.") + "</p>";
  html += '<div class="charts">' + m.charts.map(chartSvg).join("") + "</div>";
  return html;
}

function chartSvg(chart) {
  const W = 600, H = 160, L = 46, B = 18;
  let html = '<div class="chart" data-chart="' + esc(chart.id) + '"><h3>' + esc(chart.title) +
    (chart.unit ? ' <span class="muted">' + esc(chart.unit) + "</span>" : "") + "</h3>";
  const points = chart.series.flatMap((s) => s.points);
  if (!points.length) return html + '<p class="muted">no data</p></div>';
  // the last five minutes, or as much as there is (at least one minute)
  const t1 = Math.max(...points.map((p) => p[0])), first = Math.min(...points.map((p) => p[0]));
  const span = Math.min(300, Math.max(60, t1 - first)), t0 = t1 - span;
  const top = Math.max(...points.map((p) => p[1]));
  const vmax = (top > 0 ? top : 1) * 1.1;
  const x = (t) => L + (W - L - 4) * Math.max(0, (t - t0) / (t1 - t0));
  const y = (v) => 4 + (H - B - 4) * (1 - v / vmax);
  let svg = '<svg viewBox="0 0 ' + W + " " + H + '">';
  for (const f of [0, 0.5, 1]) {
    const v = vmax / 1.1 * f;
    svg += '<line x1="' + L + '" x2="' + W + '" y1="' + y(v) + '" y2="' + y(v) + '" stroke="#e4e8ef"/>' +
      '<text x="' + (L - 4) + '" y="' + (y(v) + 4) + '" font-size="10" text-anchor="end" fill="#6b7385">' +
      short(v) + "</text>";
  }
  const ago = span >= 120 ? Math.round(span / 60) + " min" : Math.round(span) + " s";
  svg += '<text x="' + L + '" y="' + (H - 3) + '" font-size="10" fill="#6b7385">-' + ago + "</text>" +
    '<text x="' + W + '" y="' + (H - 3) + '" font-size="10" text-anchor="end" fill="#6b7385">now</text>';
  chart.series.forEach((s, i) => {
    const pts = s.points.filter((p) => p[0] >= t0).map((p) => x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1));
    const color = COLORS[i % COLORS.length];
    svg += '<polyline fill="none" stroke-width="1.6" stroke="' + color + '" points="' + pts.join(" ") + '"/>';
    if (pts.length) {
      const [cx, cy] = pts[pts.length - 1].split(",");
      svg += '<circle r="2.5" cx="' + cx + '" cy="' + cy + '" fill="' + color + '"/>';
    }
  });
  svg += "</svg>";
  const legend = chart.series.map((s, i) => '<i style="background:' + COLORS[i % COLORS.length] + '"></i>' +
    esc(s.label) + " " + short(s.points.length ? s.points[s.points.length - 1][1] : 0)).join("");
  return html + svg + '<div class="legend">' + legend + "</div></div>";
}

function short(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (a >= 1e3) return (v / 1e3).toFixed(1) + "k";
  if (a >= 10 || Number.isInteger(v)) return v.toFixed(0);
  return a >= 1 ? v.toFixed(1) : v.toFixed(2);
}

// -- operator actions ---------------------------------------------------------------------------

function form(id, title, fields, button) {
  return '<form id="' + id + '" data-action="' + id + '"><h3>' + esc(title) + "</h3>" + fields +
    ' <button type="submit">' + esc(button) + "</button></form>";
}
function input(name, label, attrs) {
  return "<label>" + esc(label) + ' <input name="' + name + '" ' + (attrs || "") + "></label>";
}

function brokersForms() {
  return form("alter-broker-config", "Change broker config (kafka-configs --entity-type brokers --alter)",
    input("broker", "Broker", 'placeholder="id; empty: cluster default" size="18"') +
    input("set", "Set", 'placeholder="log.cleaner.threads=2" size="30"') +
    input("delete", "Delete", 'placeholder="log.cleaner.threads" size="20"'), "Apply");
}

function topicsForms() {
  return form("create-topic", "Create topic", input("topic", "Name", 'required size="24"') +
      input("partitions", "Partitions", 'type="number" min="1" value="3" style="width:5em"') +
      input("replication_factor", "Replication factor", 'type="number" min="1" value="3" style="width:4em"') +
      input("configs", "Configs", 'placeholder="retention.ms=86400000,cleanup.policy=compact" size="40"'),
      "Create") +
    form("preferred-election", "Preferred leader election",
      input("partitions", "Partitions", 'placeholder="all, or topic-0,topic-1" size="40"'), "Run election");
}

function topicForms(name) {
  const hidden = '<input type="hidden" name="topic" value="' + esc(name) + '">';
  return form("add-partitions", "Add partitions", hidden +
      input("partitions", "New partition count", 'type="number" min="1" required style="width:5em"'), "Add") +
    form("preferred-election", "Preferred leader election for this topic", hidden, "Run election") +
    form("alter-topic-config", "Change config (kafka-configs --alter)", hidden +
      input("set", "Set", 'placeholder="retention.ms=3600000,cleanup.policy=[compact,delete]" size="34"') +
      input("delete", "Delete", 'placeholder="cleanup.policy" size="20"'), "Apply") +
    reassignmentForms(name);
}

function reassignmentForms(topic) {
  return form("generate-reassignment", "Generate a reassignment plan (kafka-reassign-partitions --generate)",
      input("topics", "Topics", 'required size="30" value="' + esc(topic || "") + '"') +
      input("brokers", "Onto brokers", 'required placeholder="0,1,2" size="10"'), "Generate") +
    form("execute-reassignment", "Execute a reassignment plan",
      '<textarea name="plan" rows="4" placeholder=\'{"version":1,"partitions":[...]}\'></textarea>', "Execute");
}

async function submitAction(event) {
  const formElement = event.target.closest("form[data-action]");
  if (!formElement) return;
  event.preventDefault();
  const fields = Object.fromEntries(new FormData(formElement).entries());
  const button = formElement.querySelector("button");
  button.disabled = true;
  try {
    const response = await fetch("/api/actions/" + formElement.dataset.action, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(fields) });
    const outcome = await response.json();
    flash(outcome.ok, (outcome.message || outcome.error || "HTTP " + response.status) +
          (outcome.rollback ? "\nRollback plan: " + outcome.rollback : ""));
    if (outcome.proposed) {
      const plan = document.querySelector("#execute-reassignment textarea");
      if (plan) plan.value = outcome.proposed;
      flash(true, "Current assignment: " + outcome.current + "\nProposed plan (in the form below): " +
            outcome.proposed);
    }
    if (outcome.ok && app.topicName) await loadTopic(app.topicName);
  } catch (error) {
    flash(false, String(error));
  } finally {
    button.disabled = false;
  }
}

function flash(ok, message) {
  const box = document.getElementById("flash");
  box.hidden = false;
  box.className = "flash " + (ok ? "ok" : "error");
  box.textContent = message;
}

document.addEventListener("submit", submitAction);
window.addEventListener("hashchange", async () => {
  app.topic = null;
  document.getElementById("flash").hidden = true;
  render();
  const r = route();
  if (r.page === "topic") await loadTopic(r.arg);
  if (r.page === "charts") app.metrics = await getJSON("/api/metrics");
  render();
});
loop();
