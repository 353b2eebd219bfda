// tests/test_inspector.js - the inspector page (examples/inspector.html) in a real browser: Debian's
// chromium driven by npm's puppeteer-core (tests/check_browser.sh installs both and builds the engine).
//
//   node tests/test_inspector.js ENGINE OUT_DIR -- ENGINE_ARGS...
//
// Starts examples/engine.c with --console 0, opens http://127.0.0.1:PORT/ in headless Chromium (exactly
// DESIGN.md 11's flags and a fresh --user-data-dir) and checks the DOM against the console's answers:
// the stores and counts equal world.stats; the entity list pages and filters; clicking an entity shows
// fields equal to world.entity (entity references as links); editing a field through the page changes
// world.hash and a value out of the schema's bounds shows the error and changes nothing; pause stops the
// frame counter, step moves it by one; the hierarchy expands lazily (children equal world.tree); the page
// opened from disk with ?port= works too; when the engine goes away the page says "disconnected" and
// reconnects by itself to a new engine on the same port, one with 10^6 entities, where it stays paged.
// Writes OUT_DIR/inspector.png and prints the first paint, the first data, and the selected entity's
// refresh times (measured, not asserted). Bounded: every wait has a timeout, the whole run is stopped
// after 240 s, and every engine is killed at the end whatever happens. Last line: "N passed, N failed".
"use strict";
const path = require("path");
const fs = require("fs");
const os = require("os");
const http = require("http");
const { spawn } = require("child_process");

const ROOT = path.join(__dirname, "..");
const MODULES = process.env.BROWSER_MODULES || path.join(ROOT, "build", "browser", "node_modules");
const puppeteer = require(path.join(MODULES, "puppeteer-core"));
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"]; // DESIGN.md 11

let passed = 0, failed = 0;
function check(cond, what) {
  if (cond) passed++;
  else {
    failed++;
    const line = (new Error().stack.split("\n")[2] || "").trim();
    console.log(`CHECK failed: ${what} (${line})`);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, fn, ms = 10000) { // polls fn until truthy; throws after ms
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e; }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what} (last: ${last && last.message ? last.message : JSON.stringify(last)})`);
}

// ---- the engine ------------------------------------------------------------------------------------
const engines = [];
function startEngine(exe, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(exe, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    engines.push(p);
    let out = "", err = "";
    const timer = setTimeout(() => reject(new Error("the engine printed no port in 60 s: " + out + err)), 60000);
    p.stdout.on("data", (d) => {
      out += d;
      const m = /console: listening on [0-9.]+:(\d+)/.exec(out);
      if (m && !p.port) { p.port = +m[1]; clearTimeout(timer); resolve(p); }
    });
    p.stderr.on("data", (d) => { err += d; });
    p.on("exit", (code) => { p.exited = true; clearTimeout(timer); if (!p.port) reject(new Error(`engine exited ${code}: ${err}`)); });
  });
}
function killEngines() { for (const p of engines) if (!p.exited) { try { p.kill("SIGKILL"); } catch (e) { /* gone */ } } }

// GET /api/NAME?ARG=JSON from here (a plain client: no Origin, a fresh connection each time)
function api(port, name, args = {}) {
  const q = Object.entries(args).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(JSON.stringify(v))}`).join("&");
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: `/api/${name}${q ? "?" + q : ""}`, agent: false,
      headers: { Connection: "close" }, timeout: 10000 }, (res) => {
      let body = "";
      res.on("data", (d) => { body += d; });
      res.on("end", () => {
        try {
          const v = JSON.parse(body);
          if (res.statusCode !== 200) reject(new Error(`${name}: ${res.statusCode} ${v.error}`)); else resolve(v);
        } catch (e) { reject(e); }
      });
    });
    req.on("timeout", () => req.destroy(new Error(`${name}: timed out`)));
    req.on("error", reject);
  });
}

// ---- what the page shows ---------------------------------------------------------------------------
const storesInDom = (page) => page.$$eval("#stores tbody tr", (rows) => rows.map((r) => ({
  name: r.dataset.store, kind: r.querySelector(".kind").textContent, count: +r.querySelector(".count").textContent })));
const frameInDom = async (page) => +(await page.$eval("#frame", (e) => e.textContent));
function fmt(v) { // as the page formats a value
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(+v.toPrecision(7));
  if (Array.isArray(v)) return "[" + v.map(fmt).join(", ") + "]";
  return JSON.stringify(v);
}

async function testStores(page, port) {
  await api(port, "frame.pause");
  const stats = await api(port, "world.stats");
  await until("the page to show the paused frame", async () => (await frameInDom(page)) === stats.frame);
  await until("the stores table to match world.stats", async () => {
    const dom = await storesInDom(page);
    return JSON.stringify(dom) === JSON.stringify(stats.stores.map((s) => ({ name: s.name, kind: s.kind, count: s.count })));
  });
  check(true, "stores and counts equal world.stats");
  check(+(await page.$eval("#alive", (e) => e.textContent)) === stats.entities, "entities alive equal world.stats");
  return stats;
}

async function testEntity(page, port) {
  // filter by actor (a store's checkbox), then click the first entity listed
  const listed = await api(port, "world.entities", { with: ["actor"], limit: 50 });
  await page.click('#stores tr[data-store="actor"] input[type=checkbox]');
  await until("the list filtered by actor", async () => (await page.$eval("#filter-info", (e) => e.textContent)) === "with actor" &&
    (await page.$$eval("#entities li", (l) => l.map((x) => +x.dataset.entity))).join() === listed.entities.join());
  check(true, "the entity list filtered by a component equals world.entities with it");
  const id = listed.entities[0];
  await page.click(`#entities li[data-entity="${id}"]`);
  await until("the clicked entity's fields", async () => (await page.$eval("#entity-panel", (e) => e.dataset.entity)) === String(id));
  const want = await api(port, "world.entity", { entity: id });
  const shown = await page.$$eval("#entity-body .comp", (comps) => comps.map((c) => ({ type: c.dataset.component,
    fields: Array.from(c.querySelectorAll("tr[data-field]")).map((r) => [r.dataset.field, r.querySelector(".value").textContent]) })));
  const expect = want.components.map((c) => ({ type: c.type,
    fields: Object.keys(c).filter((k) => k !== "type").map((k) => [k, fmt(c[k])]) }));
  check(JSON.stringify(shown) === JSON.stringify(expect), `fields equal world.entity: ${JSON.stringify(shown)} vs ${JSON.stringify(expect)}`);
  const bounds = await page.$eval('#entity-body .comp[data-component="actor"] tr[data-field="mass"]', (r) => r.cells[2].textContent);
  check(/min 0/.test(bounds), `the schema's bounds are shown: ${bounds}`);
  return id;
}

async function testEdit(page, port, id) {
  const before = (await api(port, "world.hash")).hash;
  const field = '#entity-body input.edit[data-component="actor"][data-field="mass"]';
  await page.type(field, "42.5");
  await page.keyboard.press("Enter");
  await until("the edited value shown", async () => (await page.$eval('#entity-body .comp[data-component="actor"] tr[data-field="mass"] .value',
    (e) => e.textContent)) === "42.5");
  const after = (await api(port, "world.hash")).hash;
  check(after !== before, `editing a field changes world.hash (${before} -> ${after})`);
  const e = await api(port, "world.entity", { entity: id });
  check(e.components.find((c) => c.type === "actor").mass === 42.5, "world.entity shows the edited value");
  await page.type(field, "-1");
  await page.keyboard.press("Enter");
  const msg = await until("the error in the page", async () => page.$eval("#entity-error", (x) => x.textContent));
  check(/mass must be >= 0/.test(msg), `a value under the schema's min: the error is shown (${msg})`);
  check((await api(port, "world.hash")).hash === after, "a refused edit changes nothing");
  // an entity reference is a link: the spin level's entities have none, so the check is the transform's parent link
}

async function testPauseStep(page, port) {
  await page.select("#rate", "250");
  await page.click("#resume");
  const f0 = await frameInDom(page);
  await until("frames to run after resume", async () => (await frameInDom(page)) >= f0 + 3);
  await page.click("#pause");
  await until("the page to say paused", async () => (await page.$eval("#run-state", (e) => e.textContent)) === "paused");
  await sleep(300);
  const f1 = await frameInDom(page);
  await sleep(1200); // several refreshes at 0.25 s
  const f2 = await frameInDom(page), api2 = (await api(port, "world.hash")).frame;
  check(f1 === f2 && api2 === f1, `pause stops the frame counter (${f1} -> ${f2}, console ${api2})`);
  await page.click("#step");
  await until("one step", async () => (await frameInDom(page)) === f1 + 1);
  check((await api(port, "world.hash")).frame === f1 + 1, "step runs one frame");
}

async function testTree(page, port) {
  const roots = await api(port, "world.tree", { limit: 50 });
  const first = roots.children.find((c) => c.descendants > 0);
  await until("the tree's roots", async () => (await page.$$eval("#tree > ul > li[data-entity]", (l) => l.length)) === Math.min(50, roots.total));
  const kids = await api(port, "world.tree", { entity: first.entity, limit: 50 });
  await page.click(`#tree > ul > li[data-entity="${first.entity}"] > .toggle`);
  const shown = await until("children fetched on expand", async () => {
    const l = await page.$$eval(`#tree > ul > li[data-entity="${first.entity}"] > ul > li[data-entity]`, (x) => x.map((e) => +e.dataset.entity));
    return l.length ? l : null;
  });
  check(shown.join() === kids.children.map((c) => c.entity).join(), "the expanded node's children equal world.tree");
  // the child's panel links its parent (an entity reference)
  await page.click(`#tree li[data-entity="${shown[0]}"] > .node`);
  await until("the child's panel", async () => (await page.$eval("#entity-panel", (e) => e.dataset.entity)) === String(shown[0]));
  const link = await until("the parent link", async () => page.$eval("#entity-body .hier a", (a) => +a.dataset.goto));
  check(link === first.entity, `the selected node's parent is a link to it (${link} vs ${first.entity})`);
  // found and clicked in one go, again until it is there: a refresh re-renders the panel between two calls
  await until("the parent link clicked", async () => page.evaluate(() => {
    const a = document.querySelector("#entity-body .hier a");
    if (a) a.click();
    return !!a;
  }));
  await until("the parent selected through its link", async () => (await page.$eval("#entity-panel", (e) => e.dataset.entity)) === String(first.entity));
}

// The selected entity's refresh: the page's own measure (request to DOM) over many refreshes
async function refreshTimes(page, id, n) {
  await page.evaluate((i) => { window.inspector.state.entityMs = []; window.inspector.select(i); }, id);
  await until(`${n} refreshes`, async () => (await page.evaluate(() => window.inspector.state.entityMs.length)) >= n, 60000);
  const ms = (await page.evaluate(() => window.inspector.state.entityMs.slice())).sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1], n: ms.length };
}

async function main() {
  const [exe, out] = process.argv.slice(2, 4);
  const engineArgs = process.argv.slice(process.argv.indexOf("--") + 1);
  if (!exe || !out) { console.log("usage: node tests/test_inspector.js ENGINE OUT_DIR -- ENGINE_ARGS..."); return 2; }
  fs.mkdirSync(out, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ecs-inspector-chromium-"));
  let browser;
  try {
    const eng = await startEngine(exe, ["--console", "0", "--max-seconds", "200", ...engineArgs]);
    browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", ignoreDefaultArgs: true,
      pipe: true, args: [...FLAGS, `--user-data-dir=${profile}`], timeout: 60000, protocolTimeout: 60000 });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.setDefaultTimeout(15000);
    const t0 = Date.now();
    await page.goto(`http://127.0.0.1:${eng.port}/`, { waitUntil: "load" });
    await until("the first data", async () => page.evaluate(() => window.inspector.firstDataMs));
    const paint = await page.evaluate(() => {
      const p = performance.getEntriesByName("first-contentful-paint")[0];
      return { fcp: p ? p.startTime : null, data: window.inspector.firstDataMs };
    });
    check(paint.fcp !== null, "the page painted");
    check(await page.$eval("#status", (e) => e.dataset.state) === "connected", "the page says connected");
    console.log(`inspector: first paint ${paint.fcp && paint.fcp.toFixed(0)} ms, first data shown ${paint.data.toFixed(0)} ms ` +
      `after navigation start (goto took ${Date.now() - t0} ms) [target: first paint under 1000 ms]`);
    await testStores(page, eng.port);
    const id = await testEntity(page, eng.port);
    await testEdit(page, eng.port, id);
    await testPauseStep(page, eng.port);
    await testTree(page, eng.port);
    await page.select("#rate", "250");
    const small = await refreshTimes(page, id, 12);
    console.log(`inspector: selected entity refresh median ${small.median.toFixed(1)} ms, max ${small.max.toFixed(1)} ms over ` +
      `${small.n} refreshes (world.entity request to DOM, ${(await api(eng.port, "world.stats")).entities} entities) [target: under 50 ms]`);
    await page.screenshot({ path: path.join(out, "inspector.png") });
    console.log(`inspector: screenshot ${path.join(out, "inspector.png")}`);

    // opened from disk with ?port=: Origin "null", allowed
    const disk = await browser.newPage();
    await disk.goto("file://" + path.join(ROOT, "examples", "inspector.html") + `?port=${eng.port}`);
    await until("the page from disk to show the stores", async () => (await storesInDom(disk)).length > 0 &&
      (await disk.$eval("#status", (e) => e.dataset.state)) === "connected");
    check(true, "the page opened from disk with ?port= reads the console");
    await disk.close();

    // the console goes away: "disconnected"; a new engine on the same port: connected again
    const port = eng.port;
    await api(port, "quit").catch(() => {});
    await until("disconnected", async () => (await page.$eval("#status", (e) => e.dataset.state)) === "disconnected", 15000);
    check(true, "the page says disconnected when the console goes away");
    const big = await startEngine(exe, ["--console", String(port), "--max-seconds", "150", ...engineArgs.filter((a, i, l) =>
      !["--spawn", "--destroy"].includes(a) && !["--spawn", "--destroy"].includes(l[i - 1])), "--spawn", "10000", "--destroy", "0", "--fps", "1000"]);
    await until("reconnected", async () => (await page.$eval("#status", (e) => e.dataset.state)) === "connected", 20000);
    check(true, "the page reconnects by itself");
    const stats = await until("10^6 entities", async () => { const s = await api(port, "world.stats"); return s.entities >= 1000000 ? s : null; }, 90000);
    await api(port, "frame.pause");
    await until("the page at 10^6 entities", async () => +(await disk_alive(page)) >= 1000000, 20000);
    const rows = await page.$$eval("#entities li", (l) => l.length);
    check(rows <= 50, `10^6 entities: the list shows one page (${rows} rows)`);
    const last = (await api(port, "world.entities", { offset: stats.entities - 1, limit: 1 })).entities[0];
    const t1 = Date.now();
    await page.evaluate(() => window.inspector.tick());
    const big1 = await refreshTimes(page, last, 6);
    const tick = await until("a tick", async () => page.evaluate(() => window.inspector.ticks), 20000);
    console.log(`inspector: at ${(await api(port, "world.stats")).entities} entities: selected entity refresh median ` +
      `${big1.median.toFixed(1)} ms, max ${big1.max.toFixed(1)} ms (${big1.n} refreshes); ${tick} ticks, the last refreshes ` +
      `within ${Date.now() - t1} ms`);
    await page.screenshot({ path: path.join(out, "inspector_1e6.png") });
    await api(port, "quit").catch(() => {});
    await browser.close();
    browser = null;
    void big;
  } catch (e) {
    failed++;
    console.log("test_inspector: " + (e && e.stack ? e.stack : e));
  } finally {
    if (browser) await browser.close().catch(() => {});
    killEngines();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`test_inspector: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}
function disk_alive(page) { return page.$eval("#alive", (e) => e.textContent); }

const guard = setTimeout(() => { console.log("test_inspector: stopped after 240 s"); killEngines(); process.exit(1); }, 240000);
main().then((code) => { clearTimeout(guard); killEngines(); process.exit(code); });
process.on("SIGTERM", () => { killEngines(); process.exit(1); });
