// The run page's client script: plain JavaScript, no framework, no network; filters, sorts and pages VIEW_RUN.

/**
 * Wilson score interval as the page computes it: the same formula and quantile as analysis/statistics.ts `wilson`
 * (a test checks they agree on every k ≤ n ≤ 200).
 */
export const PAGE_WILSON_SOURCE = `function wilson(k, n) {
  var z = 1.959963984540054;
  if (n === 0) return { low: 0, high: 0 };
  var p = k / n;
  var d = 1 + (z * z) / n;
  var c = p + (z * z) / (2 * n);
  var s = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { low: Math.max(0, (c - s) / d), high: Math.min(1, (c + s) / d) };
}`;

/** Units shown per page of the unit table. */
const UNITS_PER_PAGE = 100;

/** The script of the run page; it reads `window.VIEW_RUN` (units.js) and renders into #filters, #cells, #units. */
export const PAGE_SCRIPT = `(function () {
'use strict';
${PAGE_WILSON_SOURCE}
var run = window.VIEW_RUN;
var dims = run.dims, cellDims = run.cellDims, values = run.values, rows = run.rows, ids = run.ids;
var outcomeAt = dims.indexOf('outcome');
var filters = {};
var page = 0;
var cellSort = { key: null, dir: 1 };
var unitSort = { key: null, dir: 1 };
function el(tag, attrs, text) {
  var node = document.createElement(tag);
  for (var name in attrs || {}) node.setAttribute(name, attrs[name]);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function pct(x) { return (100 * x).toFixed(1) + '%'; }
function readHash() {
  filters = {};
  page = 0;
  var hash = location.hash.replace(/^#/, '');
  hash.split('&').forEach(function (pair) {
    if (!pair) return;
    var parts = pair.split('=');
    var dim = decodeURIComponent(parts[0]), value = decodeURIComponent(parts[1] || '');
    if (dim === 'page') page = Number(value) || 0;
    else if (dims.indexOf(dim) >= 0) filters[dim] = value;
  });
}
function writeHash() {
  var parts = [];
  dims.forEach(function (dim) {
    if (filters[dim] !== undefined) parts.push(encodeURIComponent(dim) + '=' + encodeURIComponent(filters[dim]));
  });
  if (page > 0) parts.push('page=' + page);
  var hash = parts.join('&');
  if (location.hash.replace(/^#/, '') !== hash) history.replaceState(null, '', hash ? '#' + hash : location.pathname);
}
function matches(row, skipOutcome) {
  for (var i = 0; i < dims.length; i++) {
    var wanted = filters[dims[i]];
    if (wanted === undefined || (skipOutcome && i === outcomeAt)) continue;
    if (values[dims[i]][row[i]] !== wanted) return false;
  }
  return true;
}
function renderFilters() {
  var box = document.getElementById('filters');
  box.textContent = '';
  dims.forEach(function (dim) {
    var label = el('label', {}, dim + ' ');
    var select = el('select', { 'data-dim': dim, id: 'filter-' + dim });
    select.appendChild(el('option', { value: '' }, 'all'));
    values[dim].slice().sort().forEach(function (value) {
      var option = el('option', { value: value }, value);
      if (filters[dim] === value) option.selected = true;
      select.appendChild(option);
    });
    select.addEventListener('change', function () {
      if (select.value === '') delete filters[dim];
      else filters[dim] = select.value;
      page = 0;
      update();
    });
    label.appendChild(select);
    box.appendChild(label);
  });
  var clear = el('button', { type: 'button', id: 'clear-filters' }, 'clear filters');
  clear.addEventListener('click', function () { filters = {}; page = 0; update(); renderFilters(); });
  box.appendChild(clear);
}
function sortRows(list, sort) {
  if (sort.key === null) return list;
  return list.slice().sort(function (a, b) {
    var x = a[sort.key], y = b[sort.key];
    return (x < y ? -1 : x > y ? 1 : 0) * sort.dir;
  });
}
function header(table, columns, sort) {
  var tr = el('tr');
  columns.forEach(function (column) {
    var th = el('th', { 'data-key': column.key, class: 'sortable' }, column.label + (sort.key === column.key ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''));
    th.addEventListener('click', function () {
      sort.dir = sort.key === column.key ? -sort.dir : 1;
      sort.key = column.key;
      update();
    });
    tr.appendChild(th);
  });
  table.appendChild(el('thead')).appendChild(tr);
}
function renderCells() {
  var groups = new Map();
  for (var r = 0; r < rows.length; r++) {
    var row = rows[r];
    if (!matches(row, true)) continue;
    var key = cellDims.map(function (dim) { return row[dims.indexOf(dim)]; }).join('|');
    var group = groups.get(key);
    if (!group) {
      group = { units: 0, unsafe: 0, completed: 0, parseFailures: 0, errors: 0 };
      cellDims.forEach(function (dim) { group[dim] = values[dim][row[dims.indexOf(dim)]]; });
      groups.set(key, group);
    }
    var outcome = values.outcome[row[outcomeAt]];
    group.units += 1;
    if (outcome === 'error') group.errors += 1;
    else {
      group.completed += 1;
      if (outcome === 'unsafe') group.unsafe += 1;
      if (outcome === 'parse failure') group.parseFailures += 1;
    }
  }
  var list = [];
  groups.forEach(function (group) {
    var ci = wilson(group.unsafe, group.completed);
    group.rate = group.completed === 0 ? -1 : group.unsafe / group.completed;
    group.low = ci.low;
    group.high = ci.high;
    list.push(group);
  });
  var grid = run.keyed;
  var columns = cellDims.map(function (dim) { return { key: dim, label: dim }; }).concat(grid
    ? [{ key: 'rate', label: 'unsafe k/n' }, { key: 'low', label: 'Wilson 95%' }, { key: 'parseFailures', label: 'parse failures' }, { key: 'errors', label: 'errors' }]
    : [{ key: 'units', label: 'units' }, { key: 'unsafe', label: 'unsafe' }, { key: 'errors', label: 'errors' }]);
  var table = el('table', { id: 'cell-table' });
  header(table, columns, cellSort);
  var body = el('tbody');
  sortRows(list, cellSort).forEach(function (group) {
    var tr = el('tr', { class: 'cell-row' });
    cellDims.forEach(function (dim) { tr.appendChild(el('td', {}, group[dim])); });
    if (grid) {
      tr.appendChild(el('td', { class: 'kn' }, group.unsafe + '/' + group.completed + (group.completed ? ' (' + pct(group.unsafe / group.completed) + ')' : ' (n = 0)')));
      tr.appendChild(el('td', { class: 'ci' }, group.completed ? '[' + pct(group.low) + ', ' + pct(group.high) + ']' : '–'));
      tr.appendChild(el('td', {}, group.parseFailures));
      tr.appendChild(el('td', {}, group.errors));
    } else {
      tr.appendChild(el('td', {}, group.units));
      tr.appendChild(el('td', {}, group.unsafe));
      tr.appendChild(el('td', {}, group.errors));
    }
    var td = el('td');
    var open = el('button', { type: 'button', class: 'open-cell' }, 'units');
    open.addEventListener('click', function () {
      cellDims.forEach(function (dim) { filters[dim] = group[dim]; });
      page = 0;
      update();
      renderFilters();
      document.getElementById('units').scrollIntoView();
    });
    td.appendChild(open);
    tr.appendChild(td);
    body.appendChild(tr);
  });
  table.appendChild(body);
  var box = document.getElementById('cells');
  box.textContent = '';
  box.appendChild(el('p', { class: 'notes', id: 'cell-count' }, list.length + ' cell(s)' + (grid ? '; k unsafe of n completed decisions (parse failures in n, errors in no n); the outcome filter applies to the unit list only' : '')));
  box.appendChild(table);
}
function renderUnits() {
  var list = [];
  for (var r = 0; r < rows.length; r++) {
    if (!matches(rows[r], false)) continue;
    var row = rows[r];
    var unit = { index: r, id: ids[r], trial: row[dims.length], exposed: row[dims.length + 1] };
    dims.forEach(function (dim, i) { unit[dim] = values[dim][row[i]]; });
    list.push(unit);
  }
  list = sortRows(list, unitSort);
  var pages = Math.max(1, Math.ceil(list.length / ${UNITS_PER_PAGE}));
  if (page >= pages) page = pages - 1;
  var shown = list.slice(page * ${UNITS_PER_PAGE}, (page + 1) * ${UNITS_PER_PAGE});
  var columns = [{ key: 'id', label: 'unit' }].concat(dims.map(function (dim) { return { key: dim, label: dim }; }));
  if (run.keyed) columns.push({ key: 'trial', label: 'trial' }, { key: 'exposed', label: 'revoked in context' });
  var table = el('table', { id: 'unit-table' });
  header(table, columns, unitSort);
  var body = el('tbody');
  shown.forEach(function (unit) {
    var tr = el('tr', { class: 'unit-row outcome-' + unit.outcome.replace(' ', '-') });
    var td = el('td');
    td.appendChild(el('a', { href: 'units/' + unit.index + '.html', class: 'unit-link' }, unit.id));
    tr.appendChild(td);
    dims.forEach(function (dim) { tr.appendChild(el('td', {}, unit[dim])); });
    if (run.keyed) {
      tr.appendChild(el('td', {}, unit.trial));
      tr.appendChild(el('td', {}, unit.exposed ? 'yes' : 'no'));
    }
    body.appendChild(tr);
  });
  table.appendChild(body);
  var box = document.getElementById('units');
  box.textContent = '';
  var nav = el('p', { class: 'pager' });
  nav.appendChild(el('span', { id: 'unit-count' }, list.length + ' unit(s) match; page ' + (page + 1) + ' of ' + pages + ' '));
  [['prev', page - 1], ['next', page + 1]].forEach(function (pair) {
    var button = el('button', { type: 'button', id: 'page-' + pair[0] }, pair[0]);
    if (pair[1] < 0 || pair[1] >= pages) button.disabled = true;
    button.addEventListener('click', function () { page = pair[1]; update(); });
    nav.appendChild(button);
  });
  box.appendChild(nav);
  box.appendChild(table);
}
function update() {
  writeHash();
  renderCells();
  renderUnits();
}
readHash();
renderFilters();
update();
window.addEventListener('hashchange', function () { readHash(); renderFilters(); update(); });
})();`;
