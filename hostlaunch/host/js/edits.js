// @ts-check
'use strict';
// Edits and rich strings: TextEdit, SnippetTextEdit, WorkspaceEdit,
// SnippetString and MarkdownString.
const { Range, illegal } = require('./position.js');
const { NotebookEdit } = require('./notebook.js');

// TextEdit: replace a range of a document with new text.
class TextEdit {
  constructor(range, newText) {
    if (!Range.isRange(range)) throw illegal('range');
    if (newText !== undefined && newText !== null && typeof newText !== 'string') throw illegal('newText');
    this.range = Range.of(range);
    this.newText = newText || '';
    this.newEol = undefined;
  }

  // isTextEdit reports whether thing is a TextEdit or looks like one.
  static isTextEdit(thing) {
    if (thing instanceof TextEdit) return true;
    return !!thing && Range.isRange(thing.range) && typeof thing.newText === 'string';
  }

  static replace(range, newText) { return new TextEdit(range, newText); }
  static insert(position, newText) { return new TextEdit(new Range(position, position), newText); }
  static delete(range) { return new TextEdit(range, ''); }

  // setEndOfLine is an edit that only changes the document's line ends.
  static setEndOfLine(eol) {
    if (typeof eol !== 'number') throw illegal('eol');
    const edit = new TextEdit(new Range(0, 0, 0, 0), '');
    edit.newEol = eol;
    return edit;
  }

  toJSON() { return { range: this.range, newText: this.newText, newEol: this.newEol }; }
}

// SnippetTextEdit: replace a range with a snippet.
class SnippetTextEdit {
  constructor(range, snippet) {
    this.range = range;
    this.snippet = snippet;
  }

  // isSnippetTextEdit reports whether thing is one or looks like one.
  static isSnippetTextEdit(thing) {
    if (thing instanceof SnippetTextEdit) return true;
    return !!thing && Range.isRange(thing.range) && SnippetString.isSnippetString(thing.snippet);
  }

  static replace(range, snippet) { return new SnippetTextEdit(range, snippet); }
  static insert(position, snippet) { return new SnippetTextEdit(new Range(position, position), snippet); }
}

const key = (uri) => uri.toString();

// WorkspaceEdit: text, snippet and notebook edits of many resources and
// file operations (create, delete, rename), kept in the order made.
class WorkspaceEdit {
  #ops = [];

  // size is the number of resources the edit touches: those of its text
  // edits and of its file operations (a rename counts its old name).
  get size() {
    const seen = new Set();
    for (const op of this.#ops) seen.add(key(op.kind === 'rename' ? op.from : op.uri));
    return seen.size;
  }

  replace(uri, range, newText, metadata) {
    this.#ops.push({ kind: 'edit', uri, edit: new TextEdit(range, newText), metadata });
  }

  insert(uri, position, newText, metadata) {
    this.replace(uri, new Range(position, position), newText, metadata);
  }

  delete(uri, range, metadata) {
    this.replace(uri, range, '', metadata);
  }

  // has reports whether the edit touches uri (an edit or a file
  // operation).
  has(uri) {
    const k = key(uri);
    return this.#ops.some((op) => (op.kind === 'rename' ? key(op.from) === k || key(op.to) === k : key(op.uri) === k));
  }

  // set replaces the text, snippet and notebook edits of uri with edits
  // (each an edit or an [edit, metadata] pair); null or undefined only
  // removes them.
  set(uri, edits) {
    const k = key(uri);
    this.#ops = this.#ops.filter((op) => !(isContentOp(op) && key(op.uri) === k));
    if (!edits) return;
    for (const item of edits) {
      if (!item) continue;
      const [edit, metadata] = Array.isArray(item) ? item : [item, undefined];
      if (SnippetTextEdit.isSnippetTextEdit(edit)) this.#ops.push({ kind: 'snippet', uri, edit, metadata });
      else if (TextEdit.isTextEdit(edit)) this.#ops.push({ kind: 'edit', uri, edit, metadata });
      else if (NotebookEdit.isNotebookEdit(edit)) this.#ops.push({ kind: 'notebook', uri, edit, metadata });
      else throw illegal('edits');
    }
  }

  // get is the text edits of uri, in order.
  get(uri) {
    const k = key(uri);
    return this.#ops.filter((op) => op.kind === 'edit' && key(op.uri) === k).map((op) => op.edit);
  }

  createFile(uri, options, metadata) {
    this.#ops.push({ kind: 'create', uri, options, metadata });
  }

  deleteFile(uri, options, metadata) {
    this.#ops.push({ kind: 'delete', uri, options, metadata });
  }

  renameFile(from, to, options, metadata) {
    this.#ops.push({ kind: 'rename', from, to, options, metadata });
  }

  // entries is [uri, edits] per resource with text or snippet edits, in
  // the order each resource was first edited.
  entries() {
    const byUri = new Map();
    for (const op of this.#ops) {
      if (op.kind !== 'edit' && op.kind !== 'snippet') continue;
      const k = key(op.uri);
      if (!byUri.has(k)) byUri.set(k, [op.uri, []]);
      byUri.get(k)[1].push(op.edit);
    }
    return [...byUri.values()];
  }

  // _ops is every operation in order, for whoever applies the edit:
  // {kind: 'edit'|'snippet'|'notebook', uri, edit, metadata},
  // {kind: 'create'|'delete', uri, options, metadata} or
  // {kind: 'rename', from, to, options, metadata}.
  _ops() {
    return this.#ops.map((op) => ({ ...op }));
  }

  toJSON() { return this.entries(); }
}

function isContentOp(op) {
  return op.kind === 'edit' || op.kind === 'snippet' || op.kind === 'notebook';
}

// escapeSnippet escapes the characters a snippet's text gives meaning:
// '$', '}' and '\'.
const escapeSnippet = (s) => String(s).replace(/[$}\\]/g, '\\$&');

// SnippetString: a snippet in TextMate syntax, built by its append
// methods, which escape what they are given.
class SnippetString {
  #tabstop = 1;

  constructor(value) {
    this.value = value || '';
  }

  // isSnippetString reports whether thing is one or has a string value.
  static isSnippetString(thing) {
    if (thing instanceof SnippetString) return true;
    return !!thing && typeof thing.value === 'string';
  }

  appendText(string) {
    this.value += escapeSnippet(string);
    return this;
  }

  // appendTabstop appends $n (n counting from 1 by default).
  appendTabstop(number = this.#tabstop++) {
    this.value += '$' + number;
    return this;
  }

  // appendPlaceholder appends ${n:value}; value is a string or a function
  // that builds a nested snippet.
  appendPlaceholder(value, number = this.#tabstop++) {
    this.value += '${' + number + ':' + this.#nested(value, escapeSnippet) + '}';
    return this;
  }

  // appendChoice appends ${n|a,b|}, escaping ',', '|' and '\' in each.
  appendChoice(values, number = this.#tabstop++) {
    const choices = values.map((v) => String(v).replace(/[|\\,]/g, '\\$&')).join(',');
    this.value += '${' + number + '|' + choices + '|}';
    return this;
  }

  // appendVariable appends ${name} or ${name:default}.
  appendVariable(name, defaultValue) {
    const d = defaultValue === undefined ? '' : this.#nested(defaultValue, (s) => String(s).replace(/[$}]/g, '\\$&'));
    this.value += '${' + name + (d ? ':' + d : '') + '}';
    return this;
  }

  // nested is value escaped, or the snippet a builder function makes
  // (numbering its tabstops on from this snippet's).
  #nested(value, escape) {
    if (typeof value !== 'function') return escape(value);
    const inner = new SnippetString();
    inner.#tabstop = this.#tabstop;
    value(inner);
    this.#tabstop = inner.#tabstop;
    return inner.value;
  }
}

// escapeMarkdown escapes Markdown's syntax characters, as VS Code does.
const escapeMarkdown = (s) => s.replace(/[\\`*_{}[\]()#+\-!~]/g, '\\$&');

// MarkdownString: Markdown text for hovers and the like; appendText
// escapes what it is given, appendMarkdown does not.
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) {
    if (typeof value !== 'string') throw illegal('value');
    this.value = value;
    this.isTrusted = undefined;
    this.supportThemeIcons = supportThemeIcons;
    this.supportHtml = false;
    this.baseUri = undefined;
  }

  // isMarkdownString reports whether thing is one or looks like one.
  static isMarkdownString(thing) {
    if (thing instanceof MarkdownString) return true;
    return !!thing && typeof thing.appendCodeblock === 'function' && typeof thing.appendMarkdown === 'function'
      && typeof thing.appendText === 'function' && thing.value !== undefined;
  }

  // appendText appends value as plain text: Markdown characters and '>'
  // escaped, runs of spaces and tabs kept as &nbsp;, each newline a new
  // paragraph, and $(icon) escaped when theme icons are on.
  appendText(value) {
    let s = String(value);
    if (this.supportThemeIcons) s = s.replace(/\$\(([A-Za-z0-9~-]+(?:~[A-Za-z-]+)?)\)/g, '\\$($1)');
    this.value += escapeMarkdown(s)
      .replace(/[ \t]+/g, (run) => '&nbsp;'.repeat(run.length))
      .replace(/>/g, '\\>')
      .replace(/\n/g, '\n\n');
    return this;
  }

  appendMarkdown(value) {
    this.value += value;
    return this;
  }

  // appendCodeblock appends value fenced as code in language; the fence
  // is longer than any run of backticks starting a line of value.
  appendCodeblock(value, language = '') {
    /** @type {string[]} */
    const runs = String(value).match(/^`+/gm) || [];
    const longest = runs.reduce((n, r) => Math.max(n, r.length), 0);
    const fence = '`'.repeat(longest >= 3 ? longest + 1 : 3);
    this.value += '\n' + fence + language + '\n' + value + '\n' + fence + '\n';
    return this;
  }
}

module.exports = { TextEdit, SnippetTextEdit, WorkspaceEdit, SnippetString, MarkdownString };
