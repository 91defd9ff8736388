// Sluice Inspector: the page. Plain ES2020, no dependencies, works offline.
//
// It speaks the protocol in SluiceInspector.docc/InspectorProtocol.md over
// ws://<host>/ws?token=<token from the page's URL>.
//
// Security: everything from the server (and from imported files) is untrusted. The page only
// ever puts it into the DOM through textContent, attributes and DOM APIs; never innerHTML.
//
// Stable element ids and classes (tests rely on these; keep them):
//   #conn-status        connection status; data-state = connecting | open | closed | refused.
//                       Its text starts with "Not connected" whenever data-state is closed/refused.
//   #reconnect          shown when not connected
//   #lane-label         the lane's label from `hello`
//   #status-line        last message / server error (class "error" for errors)
//   #pause              Pause / Resume (label toggles on the server's `paused` reply)
//   #export             export the session → downloads sluice-session.json
//   #import-file        <input type=file> to load a session for replay
//   #view-live, #view-import   switch the log between the live log and an imported session
//   #filter             filter box (type, payload text, site)
//   #log-count          "N actions" / "M of N shown"
//   #summary            "N older actions summarized" (hidden when nothing was dropped);
//                       #summary-types lists them by type
//   #log, #import-log   the logs; data-count = number of records held.
//     .log-row[data-seq]        one row per record (classes: selected, skipped, jumped, future, in-range)
//       .c-seq .c-type .c-payload .c-stores .c-dur .c-site .c-cause   cells
//       .cause-link[data-seq]   link to the record that caused this one
//       .jump-btn               "Jump" (time travel to the state after this record)
//       .skip-toggle            checkbox: skip this record in the fork
//   #test-from, #test-through, #export-test   range + "Download Swift test"
//   #tab-detail, #tab-why, #tab-travel, #tab-replay   tabs; panels #panel-detail, #panel-why,
//                       #panel-travel, #panel-replay
//   #detail-title, #detail    the selected record; #detail[data-seq] once its detail arrived
//     .store-detail[data-store]   per store
//     .diff-line[data-store][data-path][data-old][data-new]   "path: old → new"; data-old/new
//                       hold compact JSON and are absent when the value was added/removed
//   .tree               a state tree; .tnode[data-path] per value (details for objects/arrays);
//                       .tval[data-path] leaf value (text = compact JSON); click fills "why".
//                       Collapsed nodes render their children when opened.
//   #why-store (select, value = store id as text), #why-path, #why-go, #why-result
//   #why-observers       the stores' observers; .why-observer[data-store][data-path] asks why
//     .why-step[data-seq]         one step; .chain-link[data-seq] each record in its chain
//   #fork-label         "Fork — state after #N; the live app is unchanged"; data-seq = N
//   #fork-state, #live-state   .store-state[data-store] each holding a .tree
//   #fork-skipped       which records the fork leaves out
//   #apply, #apply-confirm-box, #apply-confirm, #apply-cancel   apply with an inline confirm
//   #fork-close         leave the fork view; #jump-base jumps to seq 0 (the base)
//   #replay-info, #replay-first, #replay-prev, #replay-next, #replay-last, #replay-slider,
//   #replay-pos (data-step), #replay-changes, #replay-state    replay of an imported session
'use strict';

(() => {
  // ───────────────────────────── helpers ─────────────────────────────

  const $ = (id) => document.getElementById(id);

  /** Creates an element. `props`: class, text, title, data (object), attrs (object), on (object). */
  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    if (props) {
      if (props.class) node.className = props.class;
      if (props.text !== undefined) node.textContent = props.text;
      if (props.title !== undefined) node.title = props.title;
      if (props.data) for (const [k, v] of Object.entries(props.data)) if (v !== undefined) node.dataset[k] = v;
      if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) if (v !== undefined) node.setAttribute(k, v);
      if (props.on) for (const [k, v] of Object.entries(props.on)) node.addEventListener(k, v);
      if (props.hidden) node.hidden = true;
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }

  const compact = (v) => (v === undefined ? 'undefined' : JSON.stringify(v));
  const truncate = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const NUMBER_FORMAT = new Intl.NumberFormat('en-US');
  const fmtInt = (n) => NUMBER_FORMAT.format(Number(n));
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isComposite = (v) => v !== null && typeof v === 'object';
  const keyOf = (id) => String(id);

  function deepEqual(a, b) {
    if (a === b) return true;
    if (!isComposite(a) || !isComposite(b) || Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
      return true;
    }
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }

  const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

  // ── paths: `items[2].done`, `byID["42"].title`; the empty path is the whole state.
  // A key is written `.name` when it is a plain name (a letter or _, then letters, digits, _),
  // as the server writes paths; otherwise `["key"]`. Reading also accepts `$`, as the server does.
  const IDENT = /^[\p{L}_][\p{L}\p{N}_]*$/u;
  const NAME_RUN = /^[\p{L}\p{N}_$]+/u;

  function joinPath(path, key) {
    if (typeof key === 'number') return `${path}[${key}]`;
    if (IDENT.test(key)) return path ? `${path}.${key}` : key;
    return `${path}[${JSON.stringify(key)}]`;
  }

  /** Parses a path into segments (numbers for array indices, strings for keys). Throws on bad input. */
  function parsePath(path) {
    const segs = [];
    let i = 0;
    while (i < path.length) {
      const c = path[i];
      if (c === '.') { i++; continue; }
      if (c === '[') {
        if (path[i + 1] === '"') {
          // A JSON string literal up to the matching quote.
          let j = i + 2;
          while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
          segs.push(JSON.parse(path.slice(i + 1, j + 1)));
          if (path[j + 1] !== ']') throw new Error(`expected ] in ${path}`);
          i = j + 2;
        } else {
          const end = path.indexOf(']', i);
          if (end < 0) throw new Error(`expected ] in ${path}`);
          const n = Number(path.slice(i + 1, end));
          if (!Number.isInteger(n)) throw new Error(`bad index in ${path}`);
          segs.push(n);
          i = end + 1;
        }
        continue;
      }
      const m = NAME_RUN.exec(path.slice(i));
      if (!m) throw new Error(`bad path ${path}`);
      segs.push(m[0]);
      i += m[0].length;
    }
    return segs;
  }

  const formatPath = (segs) => segs.reduce((p, s) => joinPath(p, s), '');

  function childOf(value, seg) {
    if (Array.isArray(value)) return typeof seg === 'number' && seg >= 0 && seg < value.length ? { found: true, value: value[seg] } : { found: false };
    if (isObj(value)) {
      const k = String(seg);
      return Object.prototype.hasOwnProperty.call(value, k) ? { found: true, value: value[k] } : { found: false };
    }
    return { found: false };
  }

  const TOMBSTONE = Symbol('removed');

  /**
   * Applies one record's changes to `states` (Map storeKey → state) in place.
   * A change without `old` adds, without `new` removes. Array removals use the indices before
   * the step, so removed elements are marked first and compacted after all changes.
   */
  function applyChanges(states, changes) {
    const touched = new Set();
    for (const change of changes || []) {
      const key = keyOf(change.store);
      let segs;
      try { segs = parsePath(change.path || ''); } catch { continue; }
      const removing = !('new' in change);
      if (segs.length === 0) {
        if (!removing) states.set(key, clone(change.new));
        continue;
      }
      if (!states.has(key)) states.set(key, typeof segs[0] === 'number' ? [] : {});
      let parent = states.get(key);
      let ok = true;
      for (let i = 0; i < segs.length - 1; i++) {
        const seg = segs[i];
        let next = parent?.[seg];
        if (!isComposite(next) || next === TOMBSTONE) {
          if (removing) { ok = false; break; }
          next = typeof segs[i + 1] === 'number' ? [] : {};
          parent[seg] = next;
        }
        parent = next;
      }
      if (!ok || !isComposite(parent)) continue;
      const last = segs[segs.length - 1];
      if (Array.isArray(parent) && typeof last === 'number') {
        if (removing) {
          if (last < parent.length) { parent[last] = TOMBSTONE; touched.add(parent); }
        } else {
          parent[last] = clone(change.new);
        }
      } else if (removing) {
        delete parent[String(last)];
      } else {
        parent[String(last)] = clone(change.new);
      }
    }
    for (const arr of touched) {
      let w = 0;
      for (let r = 0; r < arr.length; r++) if (arr[r] !== TOMBSTONE) arr[w++] = arr[r];
      arr.length = w;
    }
  }

  function download(fileName, text, mime) {
    const blob = new Blob([text], { type: mime });
    const url = URL.createObjectURL(blob);
    const a = h('a', { attrs: { href: url, download: fileName } });
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  /** A safe file name: the last path component, with only ordinary characters. */
  function safeFileName(name, fallback) {
    const base = String(name || '').split(/[\\/]/).pop().replace(/[^A-Za-z0-9._+-]/g, '_');
    return base && !/^\.+$/.test(base) ? base : fallback;
  }

  // ───────────────────────────── state ─────────────────────────────

  const app = {
    capabilities: new Set(),
    capacity: 10_000,
    lane: '',
    stores: new Map(), // key → {id, name, label}
    live: new Map(), // key → state (the snapshot's, kept current with each record's changes)
    lastSeq: 0, // newest seq applied to `live`
    liveGap: false,
    selectedSeq: null,
    anchorSeq: null, // for shift-click ranges
    fork: null, // {seq, states: Map key → state, skipped: Set<number>}
    skipped: new Set(),
    paused: false,
    summary: { dropped: 0, byType: {} },
    pending: new Map(), // request id → {command, ...}
    lastJumpId: null,
    view: 'live',
    replay: null, // {fileName, session, records, base: Map, stores: Map, step}
  };

  function storeLabel(id, stores = app.stores) {
    const s = stores.get(keyOf(id));
    return s ? s.label : keyOf(id);
  }

  function setStores(list, target) {
    target.clear();
    const counts = new Map();
    for (const s of list || []) counts.set(s.name, (counts.get(s.name) || 0) + 1);
    for (const s of list || []) {
      const name = s.name ?? keyOf(s.id);
      const label = counts.get(s.name) > 1 ? `${name} (${keyOf(s.id)})` : String(name);
      target.set(keyOf(s.id), { id: s.id, name, label });
    }
  }

  // ───────────────────────────── status line ─────────────────────────────

  let statusTimer = null;
  function status(text, kind = 'info') {
    const line = $('status-line');
    line.textContent = text;
    line.className = kind;
    line.title = new Date().toLocaleTimeString();
    clearTimeout(statusTimer);
    if (kind === 'info') statusTimer = setTimeout(() => { if (line.textContent === text) line.textContent = ''; }, 8000);
  }

  // ───────────────────────────── record rendering ─────────────────────────────

  function recordType(rec) {
    return rec?.action?.type ?? rec?.kind ?? '?';
  }

  function siteText(site) {
    return site && site.file ? `${site.file}:${site.line ?? '?'}` : '';
  }

  function causeNode(cause, onLink) {
    const span = h('span');
    const link = (seq) => h('a', { class: 'cause-link', text: `#${seq}`, data: { seq: String(seq) }, attrs: { href: '#', role: 'button' }, on: onLink ? { click: (e) => { e.preventDefault(); e.stopPropagation(); onLink(seq); } } : undefined });
    if (!cause || cause.kind === 'unknown') span.append('unknown');
    else if (cause.kind === 'outside') span.append('outside');
    else if (cause.kind === 'lane') {
      span.append(h('span', { text: 'lane, during ' }), link(cause.parent));
      if (cause.observerOf) span.append(h('span', { class: 'observer', text: ` (observer of ${cause.observerOf})` }));
    }
    else if (cause.kind === 'effect') span.append(h('span', { text: 'effect ' }), h('span', { class: 'effect-name', text: String(cause.effect ?? '') }), h('span', { text: '\u00a0of ' }), link(cause.parent));
    else if (cause.kind === 'log') span.append(`log, from node ${cause.node ?? '?'}`);
    else span.append(String(cause.kind));
    return span;
  }

  function causeText(cause) {
    if (!cause || cause.kind === 'unknown') return 'unknown';
    if (cause.kind === 'outside') return 'outside';
    if (cause.kind === 'lane') return `lane, during #${cause.parent}${cause.observerOf ? ` (observer of ${cause.observerOf})` : ''}`;
    if (cause.kind === 'effect') return `effect ${cause.effect ?? ''} of #${cause.parent}`;
    if (cause.kind === 'log') return `log, from node ${cause.node ?? '?'}`;
    return String(cause.kind);
  }

  function changeText(change) {
    const old = 'old' in change ? truncate(compact(change.old), 400) : '(absent)';
    const nu = 'new' in change ? truncate(compact(change.new), 400) : '(absent)';
    return { path: change.path || '(state)', old, nu };
  }

  function diffLine(change, stores) {
    const t = changeText(change);
    const kind = !('old' in change) ? 'added' : !('new' in change) ? 'removed' : 'changed';
    return h('li', {
      class: `diff-line ${kind}`,
      data: {
        store: keyOf(change.store),
        path: change.path ?? '',
        old: 'old' in change ? compact(change.old) : undefined,
        new: 'new' in change ? compact(change.new) : undefined,
      },
      title: `${storeLabel(change.store, stores)} — click to ask why`,
    },
    h('span', { class: 'd-path', text: t.path }), ': ',
    h('span', { class: 'd-old', text: t.old }), ' → ',
    h('span', { class: 'd-new', text: t.nu }));
  }

  // ───────────────────────────── the log ─────────────────────────────

  const FLUSH_BATCH = 1000;
  const CHUNK_ROWS = 100; // rows live in chunks so that adding or dropping one relays out one chunk
  const ROW_H = 28; // px, .log-row's height (keep in sync with --row-h)

  /**
   * A log of records, rendered incrementally: records are queued and appended once per frame,
   * in chunks of CHUNK_ROWS rows; chunks off screen are skipped by layout (content-visibility).
   */
  class LogView {
    constructor(root, opts) {
      this.root = root;
      this.body = root.querySelector('.log-body');
      this.empty = root.querySelector('.log-empty');
      this.opts = opts;
      this.recs = new Map(); // seq → record (insertion order = log order)
      this.rows = new Map(); // seq → row element (rendered ones)
      this.pending = []; // records to render
      this.dropped = []; // rendered rows to remove
      this.filter = '';
      this.visible = 0;
      this.selected = null;
      this.cap = Infinity;
      this.scheduled = false;
      this.stick = true; // follow the newest row while scrolled to the bottom
      root.addEventListener('scroll', () => {
        this.stick = root.scrollTop + root.clientHeight >= root.scrollHeight - 2 * ROW_H;
      }, { passive: true });
      root.addEventListener('click', (e) => this.onClick(e));
      root.addEventListener('change', (e) => {
        const t = e.target;
        if (t.classList?.contains('skip-toggle')) this.opts.onSkip?.(Number(t.closest('.log-row').dataset.seq), t.checked, t);
      });
      root.addEventListener('keydown', (e) => this.onKey(e));
    }

    get size() { return this.recs.size; }
    get(seq) { return this.recs.get(seq); }

    clear() {
      this.recs.clear();
      this.rows.clear();
      this.pending = [];
      this.dropped = [];
      this.body.replaceChildren();
      this.visible = 0;
      this.selected = null;
      this.stick = true;
      this.updateCount();
    }

    add(records) {
      for (const rec of records) {
        if (!rec || typeof rec.seq !== 'number' || this.recs.has(rec.seq)) continue;
        this.recs.set(rec.seq, rec);
        this.pending.push(rec);
      }
      while (this.recs.size > this.cap) {
        const seq = this.recs.keys().next().value;
        this.recs.delete(seq);
        const row = this.rows.get(seq);
        if (row) { this.rows.delete(seq); this.dropped.push(row); }
      }
      if (this.pending.length > this.cap) this.pending.splice(0, this.pending.length - this.cap);
      this.schedule();
    }

    schedule() {
      if (this.scheduled) return;
      this.scheduled = true;
      const run = () => { this.scheduled = false; this.flush(); };
      if (document.hidden) setTimeout(run, 250); else requestAnimationFrame(run);
    }

    /** Applies the queued changes to the DOM: writes only, then one scroll (one layout). */
    flush() {
      const touched = new Set();
      for (const row of this.dropped) {
        if (!row.hidden) this.visible--;
        const chunk = row.parentNode;
        row.remove();
        if (chunk) touched.add(chunk);
      }
      this.dropped = [];
      const batch = this.pending.splice(0, FLUSH_BATCH);
      let chunk = this.body.lastElementChild;
      for (const rec of batch) {
        if (!this.recs.has(rec.seq) || this.rows.has(rec.seq)) continue; // dropped meanwhile
        const row = this.buildRow(rec);
        row.hidden = !this.matches(row);
        if (!row.hidden) this.visible++;
        this.opts.decorate?.(row, rec.seq);
        this.rows.set(rec.seq, row);
        if (!chunk || chunk.childElementCount >= CHUNK_ROWS) {
          chunk = h('div', { class: 'log-chunk' });
          this.body.append(chunk);
        }
        chunk.append(row);
        touched.add(chunk);
      }
      for (const c of touched) this.sizeChunk(c);
      if (this.stick && !this.root.hidden && batch.length) this.root.scrollTop = this.root.scrollHeight;
      this.updateCount();
      if (this.pending.length) this.schedule();
    }

    /** An off-screen chunk is laid out as a box of this size (its rows are skipped). */
    sizeChunk(chunk) {
      if (!chunk.firstElementChild) { chunk.remove(); return; }
      let shown = 0;
      for (const row of chunk.children) if (!row.hidden) shown++;
      chunk.style.containIntrinsicSize = `${shown * ROW_H}px`;
    }

    buildRow(rec) {
      const type = recordType(rec);
      const payloadText = rec.action && 'payload' in rec.action ? compact(rec.action.payload) : '';
      const site = siteText(rec.site);
      const stores = (rec.stores || []).map((id) => storeLabel(id, this.opts.stores())).join(', ');
      const row = h('div', { class: 'log-row log-grid', data: { seq: String(rec.seq), kind: rec.kind } });
      row.searchText = `${type}\n${payloadText}\n${site}`.toLowerCase();
      const typeCell = h('span', { class: 'c-type', title: type });
      if (rec.kind && rec.kind !== 'action') typeCell.append(h('span', { class: `badge ${rec.kind}`, text: rec.kind === 'transaction' ? 'tx' : rec.kind === 'replacement' ? 'replace' : rec.kind }));
      typeCell.append(type);
      if (!rec.changes || rec.changes.length === 0) row.classList.add('no-change');
      row.append(
        h('span', { class: 'c-seq', text: `#${rec.seq}`, title: rec.time ? `ended ${rec.time}` : undefined }),
        typeCell,
        h('span', { class: 'c-payload', text: truncate(payloadText, 240), title: 'Click to expand' }),
        h('span', { class: 'c-stores', text: stores, title: stores }),
        h('span', { class: 'c-dur num', text: rec.durationMicros !== undefined && rec.durationMicros !== null ? `${fmtInt(rec.durationMicros)} µs` : '' }),
        h('span', { class: 'c-site', text: site ? `${String(rec.site.file).split('/').pop()}:${rec.site.line ?? '?'}` : '—', title: site }),
        h('span', { class: 'c-cause', title: causeText(rec.cause) }, causeNode(rec.cause)),
      );
      const ctl = h('span', { class: 'c-ctl' });
      if (this.opts.controls) {
        ctl.append(
          h('button', { class: 'jump-btn', text: 'Jump', title: `Show the state after #${rec.seq}`, attrs: { type: 'button' } }),
          h('label', { class: 'skip', title: 'Leave this action out of the fork' }, h('input', { class: 'skip-toggle', attrs: { type: 'checkbox' } }), 'Skip'),
        );
      }
      row.append(ctl);
      return row;
    }

    matches(row) {
      return !this.filter || row.searchText.includes(this.filter);
    }

    setFilter(text) {
      this.filter = text.trim().toLowerCase();
      let visible = 0;
      for (const row of this.rows.values()) {
        const show = this.matches(row);
        if (row.hidden === show) row.hidden = !show;
        if (show) visible++;
      }
      this.visible = visible;
      for (const chunk of [...this.body.children]) this.sizeChunk(chunk);
      this.updateCount();
    }

    updateCount() {
      this.root.dataset.count = String(this.recs.size);
      this.empty.hidden = this.recs.size > 0;
      this.opts.onCount?.(this);
    }

    select(seq, scroll = true) {
      if (this.selected !== null) this.rows.get(this.selected)?.classList.remove('selected');
      this.selected = seq;
      const row = this.rows.get(seq);
      if (row) {
        row.classList.add('selected');
        if (scroll) row.scrollIntoView({ block: 'nearest' });
      }
    }

    /** Calls fn(row, seq) for every rendered row; new rows get `decorate` when rendered. */
    forEachRow(fn) { for (const [seq, row] of this.rows) fn(row, seq); }

    onClick(e) {
      const t = e.target;
      const row = t.closest?.('.log-row');
      if (!row) return;
      const seq = Number(row.dataset.seq);
      if (t.classList.contains('jump-btn')) { this.opts.onJump?.(seq); return; }
      if (t.closest('.skip')) return;
      if (t.classList.contains('cause-link')) { e.preventDefault(); this.opts.onCause?.(Number(t.dataset.seq)); return; }
      if (t.classList.contains('c-payload')) {
        const open = row.querySelector('.payload-full');
        row.classList.toggle('expanded', !open);
        if (open) open.remove();
        else {
          const rec = this.recs.get(seq);
          row.append(h('pre', { class: 'payload-full', text: JSON.stringify(rec?.action?.payload ?? null, null, 2) }));
        }
        return;
      }
      if (t.closest('.payload-full') && window.getSelection()?.toString()) return;
      this.opts.onSelect?.(seq, e);
    }

    onKey(e) {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      if (e.target !== this.root) return;
      e.preventDefault();
      let row = this.selected !== null ? this.rows.get(this.selected) : null;
      const all = () => [...this.rows.values()];
      const step = (r) => {
        const chunk = r.parentNode;
        const sib = e.key === 'ArrowDown' ? r.nextElementSibling : r.previousElementSibling;
        if (sib) return sib;
        const nextChunk = e.key === 'ArrowDown' ? chunk?.nextElementSibling : chunk?.previousElementSibling;
        return nextChunk ? (e.key === 'ArrowDown' ? nextChunk.firstElementChild : nextChunk.lastElementChild) : null;
      };
      let next = row ? step(row) : (e.key === 'ArrowDown' ? all()[0] : all().at(-1));
      while (next && next.hidden) next = step(next);
      if (next) this.opts.onSelect?.(Number(next.dataset.seq), e);
    }
  }

  function updateCount() {
    const log = app.view === 'import' ? importLog : liveLog;
    const total = log.size;
    const shown = log.filter ? log.visible + log.pending.filter((r) => log.recs.has(r.seq)).length : total;
    $('log-count').textContent = log.filter ? `${fmtInt(shown)} of ${fmtInt(total)} shown` : `${fmtInt(total)} ${total === 1 ? 'action' : 'actions'}`;
  }

  const liveLog = new LogView($('log'), {
    controls: true,
    stores: () => app.stores,
    onCount: () => { if (app.view === 'live') updateCount(); },
    onSelect: (seq, e) => selectRecord(seq, e),
    onJump: (seq) => jump(seq),
    onSkip: (seq, skip, input) => toggleSkip(seq, skip, input),
    onCause: (seq) => selectRecord(seq),
    decorate: (row, seq) => decorateRow(row, seq),
  });

  const importLog = new LogView($('import-log'), {
    controls: false,
    stores: () => app.replay?.stores ?? new Map(),
    onCount: () => { if (app.view === 'import') updateCount(); },
    onSelect: (seq) => replayGoToSeq(seq),
    onCause: (seq) => replayGoToSeq(seq),
  });

  function decorateRow(row, seq, range = testRange()) {
    row.classList.toggle('selected', seq === app.selectedSeq);
    row.classList.toggle('skipped', app.skipped.has(seq));
    const box = row.querySelector('.skip-toggle');
    if (box) box.checked = app.skipped.has(seq);
    row.classList.toggle('jumped', !!app.fork && seq === app.fork.seq);
    row.classList.toggle('future', !!app.fork && seq > app.fork.seq);
    const [from, through] = range;
    row.classList.toggle('in-range', from !== null && through !== null && seq >= from && seq <= through);
  }

  function redecorate() {
    const range = testRange();
    liveLog.forEachRow((row, seq) => decorateRow(row, seq, range));
  }

  // ───────────────────────────── state trees ─────────────────────────────

  const CHILD_LIMIT = 200;
  const treeOpenState = new Map(); // context → Map(path → open)

  /**
   * Renders `value` as a tree. opts: store (id), context (remembers open nodes), compare
   * ({value} of the other side, to mark differences), onPick(store, path).
   */
  function renderTree(value, opts) {
    const tree = h('div', { class: 'tree', data: { store: keyOf(opts.store) } });
    const open = treeOpenState.get(opts.context) || new Map();
    treeOpenState.set(opts.context, open);
    const cmpRoot = opts.compare;
    if (isComposite(value)) {
      renderChildren(tree, value, '', 1, cmpRoot, opts, open);
    } else {
      tree.append(renderNode('(state)', value, '', 1, cmpRoot, opts, open));
    }
    return tree;
  }

  function renderChildren(container, value, path, depth, cmp, opts, open, start = 0) {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    // How many children to show is remembered like open nodes, so re-renders keep "Show more".
    const shownKey = `${path}\u0000shown`;
    const limit = Math.max(start + CHILD_LIMIT, start === 0 ? open.get(shownKey) || 0 : 0);
    const end = Math.min(entries.length, limit);
    const frag = document.createDocumentFragment();
    for (let i = start; i < end; i++) {
      const [k, v] = entries[i];
      const childCmp = cmp ? (cmp.found ? childOf(cmp.value, k) : { found: false }) : undefined;
      frag.append(renderNode(Array.isArray(value) ? `[${k}]` : String(k), v, joinPath(path, k), depth, childCmp, opts, open));
    }
    if (end < entries.length) {
      const more = h('button', { class: 'more linkish', text: `Show ${fmtInt(Math.min(CHILD_LIMIT, entries.length - end))} more of ${fmtInt(entries.length - end)}`, attrs: { type: 'button' } });
      more.addEventListener('click', () => {
        more.remove();
        open.set(shownKey, end + CHILD_LIMIT);
        renderChildren(container, value, path, depth, cmp, opts, open, end);
      });
      frag.append(more);
    }
    container.append(frag);
  }

  function valueClass(v) {
    if (v === null) return 't-null';
    if (typeof v === 'string') return v === '‹redacted›' ? 't-redacted' : 't-str';
    return `t-${typeof v}`;
  }

  function renderNode(label, v, path, depth, cmp, opts, open) {
    let mark = '';
    if (cmp) mark = !cmp.found ? ' only-here' : !deepEqual(v, cmp.value) ? ' differs' : '';
    const pick = (e) => { e.preventDefault(); e.stopPropagation(); opts.onPick?.(opts.store, path); };
    if (!isComposite(v)) {
      return h('div', { class: `tnode tleaf${mark}`, data: { path } },
        h('span', { class: 'tkey', text: label }),
        h('span', { class: `tval ${valueClass(v)}`, text: truncate(compact(v), 2000), data: { path }, title: `${path || '(state)'} — click to ask why`, on: { click: pick } }));
    }
    const count = Array.isArray(v) ? v.length : Object.keys(v).length;
    const meta = Array.isArray(v) ? `[${fmtInt(count)}]` : `{${fmtInt(count)}}`;
    const details = h('details', { class: `tnode${mark}`, data: { path } });
    const summary = h('summary', null,
      h('span', { class: 'tkey', text: label }),
      h('span', { class: 'tmeta', text: meta }),
      h('span', { class: 'tpreview', text: truncate(compact(v), 80) }),
      h('button', { class: 'tpick', text: 'why?', title: `Ask why ${path} changed`, attrs: { type: 'button' }, on: { click: pick } }));
    const children = h('div', { class: 'tchildren' });
    details.append(summary, children);
    let rendered = false;
    const fill = () => { if (!rendered) { rendered = true; renderChildren(children, v, path, depth + 1, cmp, opts, open); } };
    const remembered = open.get(path);
    // By default: open what differs from the other side (when comparing), and small nodes near the top.
    const byDefault = cmp ? (mark ? count <= 200 : depth <= 1 && count <= 20) : (depth <= 1 && count <= 50) || (depth === 2 && count <= 6);
    const isOpen = count > 0 && (remembered !== undefined ? remembered : byDefault);
    if (isOpen) { details.open = true; fill(); }
    details.addEventListener('toggle', () => { open.set(path, details.open); if (details.open) fill(); });
    return details;
  }

  /** Renders each store's state of `states` (Map key → state) into `container`. */
  function renderStates(container, states, opts) {
    const frag = document.createDocumentFragment();
    const stores = opts.stores || app.stores;
    const keys = [...new Set([...stores.keys(), ...states.keys()])].filter((k) => states.has(k));
    for (const key of keys) {
      const cmp = opts.compare ? (opts.compare.has(key) ? { found: true, value: opts.compare.get(key) } : { found: false }) : undefined;
      const block = h('details', { class: 'store-state', data: { store: key }, attrs: { open: '' } },
        h('summary', { class: 'store-name', text: storeLabel(stores.get(key)?.id ?? key, stores) }),
        renderTree(states.get(key), { store: stores.get(key)?.id ?? key, context: `${opts.context}:${key}`, compare: cmp, onPick: opts.onPick }));
      frag.append(block);
    }
    if (!keys.length) frag.append(h('p', { class: 'muted', text: 'No stores.' }));
    container.replaceChildren(frag);
  }

  // ───────────────────────────── connection ─────────────────────────────

  const conn = { ws: null, opened: false, everOpened: false, attempt: 0, timer: null, nextId: 1 };
  const RETRY_DELAYS = [2, 5, 10, 20, 30, 60];
  const MAX_RETRIES = 20;

  function token() {
    return new URLSearchParams(location.search).get('token') ?? '';
  }

  function setConn(state, text) {
    const el = $('conn-status');
    el.dataset.state = state;
    el.textContent = text;
    $('reconnect').hidden = state === 'open' || state === 'connecting';
    const open = state === 'open';
    for (const id of ['pause', 'export', 'why-go', 'export-test']) $(id).disabled = !open || !capable(id);
    updateForkButtons();
  }

  function capable(id) {
    // An element id, or a capability's name.
    const need = { 'why-go': 'why', 'export-test': 'exportTest', 'jump-base': 'jump' }[id] ?? id;
    return app.capabilities.size === 0 || app.capabilities.has(need);
  }

  function connect() {
    clearTimeout(conn.timer);
    if (conn.ws) { conn.ws.onclose = null; try { conn.ws.close(); } catch { /* ignore */ } }
    conn.opened = false;
    setConn('connecting', 'Connecting…');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token())}`;
    let ws;
    try { ws = new WebSocket(url); } catch (err) { setConn('refused', `Not connected: ${err.message}`); return; }
    conn.ws = ws;
    ws.onopen = () => {
      conn.opened = true;
      conn.everOpened = true;
      conn.attempt = 0;
      setConn('open', 'Connected');
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { status('The inspector sent a message that is not JSON.', 'error'); return; }
      if (!isObj(msg)) return;
      try { handle(msg); } catch (err) { console.error(err); status(`Could not show a "${msg.type}" message: ${err.message}`, 'error'); }
    };
    ws.onclose = (ev) => {
      conn.ws = null;
      app.pending.clear();
      if (!conn.opened && !conn.everOpened) {
        setConn('refused', token() ? 'Not connected: the inspector refused the connection (wrong token, or it stopped).' : 'Not connected: the URL has no ?token=.');
        return;
      }
      if (conn.attempt >= MAX_RETRIES) { setConn('closed', 'Not connected: gave up reconnecting.'); return; }
      const delay = RETRY_DELAYS[Math.min(conn.attempt, RETRY_DELAYS.length - 1)];
      conn.attempt++;
      const reason = conn.opened ? `connection closed${ev.code ? ` (${ev.code})` : ''}${ev.reason ? `: ${ev.reason}` : ''}` : 'could not reconnect';
      setConn('closed', `Not connected: ${reason}; retrying in ${delay} s.`);
      conn.timer = setTimeout(connect, delay * 1000);
    };
  }

  function send(command, extra = {}) {
    if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) { status('Not connected.', 'error'); return null; }
    const id = conn.nextId++;
    app.pending.set(id, { command, ...extra });
    conn.ws.send(JSON.stringify({ command, id, ...extra }));
    return id;
  }

  /** The request a reply answers (and forgets it). */
  function takeRequest(msg) {
    if (msg.id === undefined || msg.id === null) return null;
    const req = app.pending.get(msg.id);
    app.pending.delete(msg.id);
    return req || null;
  }

  // ───────────────────────────── messages ─────────────────────────────

  function handle(msg) {
    switch (msg.type) {
      case 'hello': return onHello(msg);
      case 'snapshot': return onSnapshot(msg);
      case 'record': return onRecord(msg.record);
      case 'store': return onStore(msg.store);
      case 'summary': return setSummary(isObj(msg.summary) ? msg.summary : msg);
      case 'states': return onStates(msg, takeRequest(msg));
      case 'detail': takeRequest(msg); return onDetail(msg);
      case 'why': takeRequest(msg); return onWhy(msg);
      case 'observers': takeRequest(msg); return onObservers(msg);
      case 'export': takeRequest(msg); return onExport(msg);
      case 'test': takeRequest(msg); return onTest(msg);
      case 'paused': takeRequest(msg); return onPaused(!!msg.paused);
      case 'applied': takeRequest(msg); return onApplied(msg);
      case 'pong': takeRequest(msg); return undefined;
      case 'error': return onError(msg, takeRequest(msg));
      default: return undefined; // newer servers may send more
    }
  }

  function onHello(msg) {
    if (msg.protocol !== 1) status(`The inspector speaks protocol ${msg.protocol}; this page knows version 1.`, 'error');
    app.lane = msg.lane ?? '';
    app.capacity = Number.isInteger(msg.capacity) && msg.capacity > 0 ? msg.capacity : 10_000;
    app.capabilities = new Set(Array.isArray(msg.capabilities) ? msg.capabilities : []);
    $('lane-label').textContent = app.lane ? `lane ${app.lane}` : '';
    liveLog.cap = app.capacity;
    setConn('open', 'Connected');
  }

  function onSnapshot(msg) {
    setStores(msg.stores, app.stores);
    app.live = new Map((msg.stores || []).map((s) => [keyOf(s.id), s.state]));
    app.liveGap = false;
    app.selectedSeq = null;
    app.anchorSeq = null;
    app.fork = null;
    app.skipped = new Set();
    app.paused = false;
    setPaused(false);
    const records = Array.isArray(msg.records) ? msg.records : [];
    app.lastSeq = records.reduce((m, r) => Math.max(m, r.seq ?? 0), 0);
    liveLog.clear();
    liveLog.add(records);
    setSummary(msg.summary || { dropped: 0, byType: {} });
    fillWhyStores();
    renderFork();
    scheduleLive();
    clearDetail();
  }

  /** A store the inspector met after the snapshot: its state before its first record. */
  function onStore(store) {
    if (!isObj(store) || store.id === undefined || store.id === null) return;
    const list = [...app.stores.values()].filter((s) => keyOf(s.id) !== keyOf(store.id))
      .map((s) => ({ id: s.id, name: s.name }));
    list.push({ id: store.id, name: store.name });
    setStores(list, app.stores);
    app.live.set(keyOf(store.id), store.state);
    fillWhyStores();
    scheduleLive();
  }

  function onRecord(rec) {
    if (!rec || typeof rec.seq !== 'number' || rec.seq <= app.lastSeq) return;
    applyChanges(app.live, rec.changes);
    app.lastSeq = rec.seq;
    liveLog.add([rec]);
    scheduleLive();
  }

  function setSummary(summary) {
    app.summary = { dropped: Number(summary?.dropped) || 0, byType: isObj(summary?.byType) ? summary.byType : {} };
    const btn = $('summary');
    btn.hidden = app.summary.dropped === 0 || app.view !== 'live';
    btn.textContent = `${fmtInt(app.summary.dropped)} older ${app.summary.dropped === 1 ? 'action' : 'actions'} summarized`;
    const list = $('summary-types');
    const entries = Object.entries(app.summary.byType).sort((a, b) => b[1] - a[1]);
    list.replaceChildren(...entries.map(([type, n]) => h('span', { class: 'chip' }, h('b', { text: type }), ` ×${fmtInt(n)}`)));
    if (btn.hidden) list.hidden = true;
  }

  function onPaused(paused) {
    // On resume the server sends a new snapshot, which the page starts over from.
    setPaused(paused);
  }

  function setPaused(paused) {
    app.paused = paused;
    const btn = $('pause');
    btn.textContent = paused ? 'Resume' : 'Pause';
    btn.classList.toggle('active', paused);
    btn.title = paused ? 'The inspector keeps recording; resume to receive the records' : 'Stop receiving records for now';
    $('live-note').textContent = paused ? '(paused)' : '';
  }

  function onApplied(msg) {
    const stores = Array.isArray(msg.stores) ? msg.stores.map((id) => storeLabel(id)) : [];
    status(stores.length
      ? `Applied the fork's state after #${msg.seq} to the live app: ${stores.join(', ')} replaced.`
      : `Applied the fork's state after #${msg.seq}: no store was replaced.`, stores.length ? 'info' : 'error');
  }

  function onError(msg, req) {
    const what = req ? ` (${req.command})` : '';
    status(`Error${what}: ${msg.message ?? msg.code ?? 'unknown'}${msg.code ? ` [${msg.code}]` : ''}`, 'error');
    if (req?.command === 'toggle') redecorate(); // put the checkbox back
  }

  // ───────────────────────────── tabs & views ─────────────────────────────

  const TABS = ['detail', 'why', 'travel', 'replay'];
  function showTab(name) {
    const opening = $(`panel-${name}`)?.hidden ?? false;
    for (const t of TABS) {
      $(`tab-${t}`).setAttribute('aria-selected', String(t === name));
      $(`panel-${t}`).hidden = t !== name;
    }
    if (name === 'travel') renderTravel(false);
    if (name === 'why') {
      fillWhyPaths();
      if (opening && capable('observers') && conn.ws?.readyState === WebSocket.OPEN) send('observers');
    }
  }

  function setView(view) {
    app.view = view;
    $('view-live').setAttribute('aria-selected', String(view === 'live'));
    $('view-import').setAttribute('aria-selected', String(view === 'import'));
    $('log').hidden = view !== 'live';
    $('import-log').hidden = view !== 'import';
    const log = view === 'import' ? importLog : liveLog;
    log.setFilter($('filter').value);
    if (view === 'import') showTab('replay');
    setSummary(app.summary);
    updateCount();
  }

  // ───────────────────────────── detail ─────────────────────────────

  function clearDetail() {
    $('detail-title').textContent = 'No action selected';
    $('detail-hint').hidden = false;
    $('detail').replaceChildren();
    delete $('detail').dataset.seq;
  }

  function selectRecord(seq, e) {
    if (e?.shiftKey && app.anchorSeq !== null && app.anchorSeq !== seq) {
      $('test-from').value = String(Math.min(app.anchorSeq, seq));
      $('test-through').value = String(Math.max(app.anchorSeq, seq));
      redecorate();
      status(`Range #${$('test-from').value}–#${$('test-through').value} picked for a test.`);
      return;
    }
    const rec = liveLog.get(seq);
    if (!rec) { status(`#${seq} is not in the log: no longer kept, or a step that changed nothing.`, 'error'); return; }
    if (app.view !== 'live') setView('live');
    app.selectedSeq = seq;
    app.anchorSeq = seq;
    liveLog.select(seq);
    showRecordHeader(rec);
    showTab('detail');
    if (capable('detail')) send('detail', { seq });
  }

  function showRecordHeader(rec) {
    $('detail-title').textContent = `#${rec.seq} ${recordType(rec)}`;
    $('detail-hint').hidden = true;
    const detail = $('detail');
    delete detail.dataset.seq;
    const meta = h('dl', { class: 'meta' },
      h('dt', { text: 'Kind' }), h('dd', { text: rec.kind ?? '' }),
      h('dt', { text: 'Cause' }), h('dd', null, causeNode(rec.cause, (s) => selectRecord(s))),
      h('dt', { text: 'Site' }), h('dd', { class: 'mono', text: siteText(rec.site) || 'unknown' }),
      h('dt', { text: 'Duration' }), h('dd', { text: rec.durationMicros !== undefined ? `${fmtInt(rec.durationMicros)} µs` : '' }),
      h('dt', { text: 'Ended' }), h('dd', { text: rec.time ?? '' }),
      h('dt', { text: 'Payload' }), h('dd', null, h('pre', { class: 'payload', text: JSON.stringify(rec.action?.payload ?? null, null, 2) })));
    const actions = h('div', { class: 'detail-actions' },
      h('button', { text: 'Jump here', attrs: { type: 'button' }, on: { click: () => jump(rec.seq) } }),
      h('button', { text: 'Use as test start', attrs: { type: 'button' }, on: { click: () => { $('test-from').value = String(rec.seq); if (!$('test-through').value) $('test-through').value = String(rec.seq); redecorate(); } } }),
      h('button', { text: 'Use as test end', attrs: { type: 'button' }, on: { click: () => { $('test-through').value = String(rec.seq); if (!$('test-from').value) $('test-from').value = String(rec.seq); redecorate(); } } }));
    detail.replaceChildren(meta, actions, h('p', { class: 'muted loading', text: 'Loading states…' }));
  }

  function onDetail(msg) {
    if (msg.seq !== app.selectedSeq) return; // an older selection
    const detail = $('detail');
    detail.querySelector('.loading')?.remove();
    detail.querySelectorAll('.store-detail').forEach((n) => n.remove());
    const stores = Array.isArray(msg.stores) ? msg.stores : [];
    if (!stores.length) detail.append(h('p', { class: 'muted store-detail', text: 'No store handled this action.' }));
    for (const s of stores) {
      const key = keyOf(s.id);
      const changes = Array.isArray(s.changes) ? s.changes : [];
      const section = h('section', { class: 'store-detail', data: { store: key } },
        h('h3', null, storeLabel(s.id), h('span', { class: 'muted', text: changes.length ? ` — ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}` : ' — no change' })));
      if (changes.length) {
        const list = h('ul', { class: 'diff' });
        for (const c of changes) list.append(diffLine({ store: s.id, ...c }));
        list.addEventListener('click', (e) => {
          const line = e.target.closest('.diff-line');
          if (line) askWhy(s.id, line.dataset.path);
        });
        section.append(list);
      }
      const bb = new Map([[key, s.before]]), aa = new Map([[key, s.after]]);
      const before = h('div', { class: 'states' }), after = h('div', { class: 'states' });
      renderStates(before, bb, { context: `before:${key}`, compare: aa, onPick: fillWhy });
      renderStates(after, aa, { context: `after:${key}`, compare: bb, onPick: fillWhy });
      section.append(h('details', { class: 'before-after', attrs: changes.length ? { open: '' } : {} },
        h('summary', { text: 'Before / after' }),
        h('div', { class: 'columns' },
          h('div', { class: 'column' }, h('h4', { text: 'Before' }), before),
          h('div', { class: 'column' }, h('h4', { text: 'After' }), after))));
      detail.append(section);
    }
    detail.dataset.seq = String(msg.seq);
  }

  // ───────────────────────────── why ─────────────────────────────

  function fillWhyStores() {
    const sel = $('why-store');
    const current = sel.value;
    sel.replaceChildren(...[...app.stores].map(([key, s]) => h('option', { text: s.label, attrs: { value: key } })));
    if (app.stores.has(current)) sel.value = current;
  }

  function fillWhyPaths() {
    const key = $('why-store').value;
    const state = app.live.get(key);
    const paths = [];
    const walk = (v, p) => {
      if (paths.length >= 500) return;
      if (p) paths.push(p);
      if (!isComposite(v)) return;
      const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
      for (const [k, x] of entries.slice(0, 100)) walk(x, joinPath(p, k));
    };
    walk(state, '');
    $('why-paths').replaceChildren(...paths.map((p) => h('option', { attrs: { value: p } })));
  }

  function fillWhy(store, path) {
    $('why-store').value = keyOf(store);
    $('why-path').value = path;
    showTab('why');
    $('why-path').focus();
  }

  function askWhy(store, path) {
    fillWhy(store, path);
    runWhy();
  }

  function runWhy() {
    const key = $('why-store').value;
    const store = app.stores.get(key);
    const path = $('why-path').value.trim();
    if (!store) { status('Pick a store.', 'error'); return; }
    try { parsePath(path); } catch (err) { status(`That path does not parse: ${err.message}`, 'error'); return; }
    $('why-result').replaceChildren(h('p', { class: 'muted', text: 'Asking…' }));
    send('why', { store: store.id, path });
  }

  /** The stores' observers: each one asks why it fired (the changes of what it reads). */
  function onObservers(msg) {
    const box = $('why-observers');
    const rows = [];
    for (const entry of Array.isArray(msg.stores) ? msg.stores : []) {
      const store = app.stores.get(keyOf(entry.id));
      if (!store) continue;
      for (const o of Array.isArray(entry.observers) ? entry.observers : []) {
        const path = typeof o.path === 'string' ? o.path : '';
        const what = o.kind === 'keyPath' ? String(o.keyPath ?? '?')
          : o.kind === 'wholeState' ? 'the whole state'
          : o.kind === 'selector' ? 'a selector' : 'reactions';
        const note = o.path === null || o.path === undefined
          ? ' — reads computed values: every change of the store' : '';
        const count = Number(o.count) > 1 ? ` ×${Number(o.count)}` : '';
        rows.push(h('li', {},
          h('a', {
            class: 'why-observer', text: `${store.label}: ${what}${count}`,
            data: { store: keyOf(entry.id), path },
            attrs: { href: '#', title: 'Why did this observer fire?' },
            on: { click: (e) => { e.preventDefault(); askWhy(store.id, path); } },
          }),
          h('span', { class: 'muted', text: note })));
      }
    }
    box.replaceChildren(rows.length ? h('ul', { class: 'observer-list' }, ...rows)
      : h('p', { class: 'muted', text: 'No store has an observer.' }));
  }

  function recordSummaryNode(seq) {
    const rec = liveLog.get(seq);
    const link = h('a', { class: 'chain-link', text: `#${seq}`, data: { seq: String(seq) }, attrs: { href: '#' }, on: { click: (e) => { e.preventDefault(); selectRecord(seq); } } });
    if (!rec) return h('span', { class: 'chain-item' }, link, h('span', { class: 'muted', text: ' (not in the log)' }));
    const site = siteText(rec.site);
    return h('span', { class: 'chain-item' }, link, ' ', h('b', { text: recordType(rec) }),
      h('span', { class: 'muted', text: ` · ${causeText(rec.cause)}${site ? ` · ${site}` : ''}` }));
  }

  function onWhy(msg) {
    const result = $('why-result');
    const steps = Array.isArray(msg.steps) ? msg.steps : [];
    const head = h('p', { class: 'why-head' }, `${steps.length} ${steps.length === 1 ? 'step' : 'steps'} changed `,
      h('code', { text: msg.path || '(state)' }), ` in ${storeLabel(msg.store)}`, steps.length ? ', newest first:' : '.');
    const list = h('ol', { class: 'why-steps' });
    for (const step of steps) {
      const chain = Array.isArray(step.chain) && step.chain.length ? step.chain : [step.seq];
      const chainList = h('ol', { class: 'chain' });
      for (const seq of chain.slice(1)) chainList.append(h('li', null, h('span', { class: 'arrow', text: '↳ caused by ' }), recordSummaryNode(seq)));
      const last = liveLog.get(chain[chain.length - 1]);
      const origin = !last ? 'The origin is not in the log.'
        : !last.cause || last.cause.kind === 'outside' ? `Origin: #${last.seq}, dispatched from outside the lane.`
          : last.cause.kind === 'unknown' ? `Origin: #${last.seq}; its cause is unknown.`
          : last.cause.kind === 'log' ? `Origin: #${last.seq}, a log entry from node ${last.cause.node}.`
            : `Origin: #${last.cause.parent}, not in the log.`;
      const changeList = h('ul', { class: 'diff' });
      if (step.change) changeList.append(diffLine(step.change));
      list.append(h('li', { class: 'why-step', data: { seq: String(step.seq) } },
        h('div', { class: 'why-title' }, recordSummaryNode(step.seq)),
        changeList,
        chain.length > 1 ? chainList : null,
        h('div', { class: 'muted origin', text: origin })));
    }
    result.replaceChildren(head, list);
  }

  // ───────────────────────────── time travel ─────────────────────────────

  function jump(seq) {
    if (!capable('jump')) { status('This inspector cannot jump.', 'error'); return; }
    const id = send('jump', { seq });
    if (id !== null) app.lastJumpId = id;
    showTab('travel');
  }

  function toggleSkip(seq, skip, input) {
    if (send('toggle', { seq, skip }) === null) input.checked = !skip;
  }

  function onStates(msg, req) {
    app.fork = {
      seq: msg.seq,
      states: new Map((msg.stores || []).map((s) => [keyOf(s.id), s.state])),
    };
    app.skipped = new Set(Array.isArray(msg.skipped) ? msg.skipped : []);
    redecorate();
    renderFork();
    if (req?.command === 'jump') showTab('travel');
  }

  /** Shows the fork's label and buttons; the trees follow in renderTravel. */
  function renderFork() {
    const label = $('fork-label');
    $('apply-confirm-box').hidden = true;
    if (!app.fork) {
      label.textContent = 'No jump yet';
      delete label.dataset.seq;
      $('fork-skipped').textContent = app.skipped.size ? `The fork skips ${[...app.skipped].sort((a, b) => a - b).map((s) => `#${s}`).join(', ')}.` : 'Press “Jump” on a row to rebuild the stores’ state after that action. “Skip” leaves an action out of the fork.';
    } else {
      const seq = app.fork.seq;
      label.textContent = seq === 0 ? 'Fork — the base state, before the first record kept; the live app is unchanged' : `Fork — state after #${seq}; the live app is unchanged`;
      label.dataset.seq = String(seq);
      $('fork-skipped').textContent = `${app.skipped.size ? `Leaving out ${[...app.skipped].sort((a, b) => a - b).map((s) => `#${s}`).join(', ')}. ` : ''}Values that differ from the live state are highlighted.`;
    }
    updateForkButtons();
    renderTravel(true);
  }

  function updateForkButtons() {
    const open = conn.ws?.readyState === WebSocket.OPEN;
    $('apply').disabled = !app.fork || !open || !capable('apply');
    $('fork-close').disabled = !app.fork;
    $('jump-base').disabled = !open || !capable('jump-base');
  }

  let liveVersion = 0; // bumped whenever app.live changes
  const travelShown = { live: -1, fork: null };
  let liveTimer = null;
  function scheduleLive() {
    liveVersion++;
    if (liveTimer) return;
    liveTimer = setTimeout(() => { liveTimer = null; renderTravel(false); }, 400);
  }

  /** Renders the fork and live trees (each marking where it differs from the other), when visible and out of date. */
  function renderTravel(force) {
    const note = app.paused ? '(paused)' : app.liveGap ? '(may be stale)' : app.lastSeq ? `(after #${app.lastSeq})` : '';
    $('live-note').textContent = note;
    if ($('panel-travel').hidden) return;
    if (!force && travelShown.live === liveVersion && travelShown.fork === app.fork) return;
    travelShown.live = liveVersion;
    travelShown.fork = app.fork;
    if (app.fork) renderStates($('fork-state'), app.fork.states, { context: 'fork', compare: app.live, onPick: fillWhy });
    else $('fork-state').replaceChildren(h('p', { class: 'muted', text: 'Press “Jump” on a row of the log.' }));
    renderStates($('live-state'), app.live, { context: 'live', compare: app.fork?.states, onPick: fillWhy });
  }

  // ───────────────────────────── export / test ─────────────────────────────

  function onExport(msg) {
    if (!isObj(msg.session)) { status('The export had no session.', 'error'); return; }
    download('sluice-session.json', JSON.stringify(msg.session, null, 2), 'application/json');
    status(`Exported ${fmtInt(msg.session.records?.length ?? 0)} records to sluice-session.json.`);
  }

  function testRange() {
    const num = (id) => { const v = $(id).value.trim(); return v === '' ? null : Number(v); };
    return [num('test-from'), num('test-through')];
  }

  function exportTest() {
    const [from, through] = testRange();
    if (!Number.isInteger(from) || !Number.isInteger(through) || from > through) {
      status('Pick a range first: “from” and “through” are record numbers, from ≤ through (shift-click two rows).', 'error');
      return;
    }
    send('exportTest', { from, through });
  }

  function onTest(msg) {
    if (typeof msg.source !== 'string') { status('The test reply had no source.', 'error'); return; }
    const name = safeFileName(msg.fileName, 'InspectorReplayTests.swift');
    download(name, msg.source, 'text/x-swift');
    status(`Downloaded ${name}.`);
  }

  // ───────────────────────────── import & replay ─────────────────────────────

  async function importFile(file) {
    let session;
    try {
      session = JSON.parse(await file.text());
    } catch (err) {
      status(`${file.name} is not JSON: ${err.message}`, 'error');
      return;
    }
    if (!isObj(session) || session.format !== 'sluice-inspector-session' || !Array.isArray(session.records)) {
      status(`${file.name} is not a Sluice Inspector session.`, 'error');
      return;
    }
    const stores = new Map();
    setStores(Array.isArray(session.stores) ? session.stores : [], stores);
    const base = new Map((Array.isArray(session.base) ? session.base : []).map((b) => [keyOf(b.id), b.state]));
    for (const b of session.base || []) if (!stores.has(keyOf(b.id))) stores.set(keyOf(b.id), { id: b.id, name: keyOf(b.id), label: keyOf(b.id) });
    const records = session.records.filter((r) => isObj(r) && typeof r.seq === 'number');
    app.replay = { fileName: file.name, session, records, base, stores, step: 0, states: null };
    importLog.clear();
    importLog.add(records);
    const btn = $('view-import');
    btn.disabled = false;
    btn.textContent = `Imported (${fmtInt(records.length)})`;
    btn.title = file.name;
    $('replay-info').textContent = `${file.name}: ${fmtInt(records.length)} records${session.lane ? `, lane ${session.lane}` : ''}`;
    $('replay-hint').textContent = session.summary?.dropped ? `${fmtInt(session.summary.dropped)} older actions were summarized before the first record.` : 'Step through the records; each step applies its changes to the state before it.';
    setView('import');
    replayGo(0);
  }

  function replayStates(step) {
    const states = new Map([...app.replay.base].map(([k, v]) => [k, clone(v)]));
    for (let i = 0; i < step; i++) applyChanges(states, app.replay.records[i].changes);
    return states;
  }

  function replayGo(step) {
    const r = app.replay;
    if (!r) return;
    step = Math.max(0, Math.min(r.records.length, step));
    r.step = step;
    const prev = step > 0 ? replayStates(step - 1) : null;
    const states = step > 0 ? new Map([...prev].map(([k, v]) => [k, clone(v)])) : replayStates(0);
    const rec = step > 0 ? r.records[step - 1] : null;
    if (rec) applyChanges(states, rec.changes);
    const slider = $('replay-slider');
    slider.max = String(r.records.length);
    slider.value = String(step);
    for (const id of ['replay-first', 'replay-prev', 'replay-next', 'replay-last', 'replay-slider']) $(id).disabled = false;
    $('replay-first').disabled = $('replay-prev').disabled = step === 0;
    $('replay-next').disabled = $('replay-last').disabled = step === r.records.length;
    const pos = $('replay-pos');
    pos.dataset.step = String(step);
    pos.textContent = rec ? `Step ${fmtInt(step)} of ${fmtInt(r.records.length)} — state after #${rec.seq} ${recordType(rec)}` : `Step 0 of ${fmtInt(r.records.length)} — the base state, before the first record`;
    const changes = $('replay-changes');
    changes.replaceChildren();
    if (rec) {
      const list = h('ul', { class: 'diff' });
      for (const c of rec.changes || []) list.append(diffLine(c, r.stores));
      if (!(rec.changes || []).length) list.append(h('li', { class: 'muted', text: 'No change.' }));
      changes.append(h('p', { class: 'muted', text: `Cause: ${causeText(rec.cause)}${rec.site ? ` · ${siteText(rec.site)}` : ''}` }), list);
    }
    renderStates($('replay-state'), states, { stores: r.stores, context: 'replay', compare: prev ?? undefined });
    if (rec) { importLog.select(rec.seq); } else importLog.select(null);
  }

  function replayGoToSeq(seq) {
    const r = app.replay;
    if (!r) return;
    const i = r.records.findIndex((rec) => rec.seq === seq);
    if (i >= 0) { showTab('replay'); replayGo(i + 1); }
  }

  // ───────────────────────────── wiring ─────────────────────────────

  function wire() {
    for (const t of TABS) $(`tab-${t}`).addEventListener('click', () => showTab(t));
    $('reconnect').addEventListener('click', () => { conn.attempt = 0; conn.everOpened = false; connect(); });
    $('pause').addEventListener('click', () => send(app.paused ? 'resume' : 'pause'));
    $('export').addEventListener('click', () => send('export'));
    $('import-file').addEventListener('change', (e) => {
      const file = e.target.files?.[0];
      if (file) importFile(file);
      e.target.value = '';
    });
    $('view-live').addEventListener('click', () => setView('live'));
    $('view-import').addEventListener('click', () => setView('import'));
    let filterTimer = null;
    $('filter').addEventListener('input', () => {
      clearTimeout(filterTimer);
      filterTimer = setTimeout(() => { (app.view === 'import' ? importLog : liveLog).setFilter($('filter').value); }, 120);
    });
    $('summary').addEventListener('click', () => {
      const list = $('summary-types');
      list.hidden = !list.hidden;
      $('summary').setAttribute('aria-expanded', String(!list.hidden));
    });
    $('export-test').addEventListener('click', exportTest);
    for (const id of ['test-from', 'test-through']) $(id).addEventListener('change', redecorate);
    $('why-form').addEventListener('submit', (e) => { e.preventDefault(); runWhy(); });
    $('why-store').addEventListener('change', fillWhyPaths);
    $('apply').addEventListener('click', () => {
      if (!app.fork) return;
      $('apply-confirm-text').textContent = `Replace every live store's state with the fork's state after #${app.fork.seq}? The app will see it as replacement records.`;
      $('apply-confirm-box').hidden = false;
      $('apply-confirm').focus();
    });
    $('jump-base').addEventListener('click', () => jump(0));
    $('apply-cancel').addEventListener('click', () => { $('apply-confirm-box').hidden = true; });
    $('apply-confirm').addEventListener('click', () => {
      $('apply-confirm-box').hidden = true;
      if (app.fork) send('apply', { seq: app.fork.seq });
    });
    $('fork-close').addEventListener('click', () => { app.fork = null; redecorate(); renderFork(); });
    $('replay-first').addEventListener('click', () => replayGo(0));
    $('replay-prev').addEventListener('click', () => replayGo((app.replay?.step ?? 0) - 1));
    $('replay-next').addEventListener('click', () => replayGo((app.replay?.step ?? 0) + 1));
    $('replay-last').addEventListener('click', () => replayGo(app.replay?.records.length ?? 0));
    $('replay-slider').addEventListener('input', (e) => replayGo(Number(e.target.value)));
    document.addEventListener('visibilitychange', () => { if (!document.hidden) { liveLog.schedule(); importLog.schedule(); } });
  }

  wire();
  renderFork();
  updateCount();
  connect();
})();
