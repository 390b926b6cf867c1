'use strict';
// Uri: the vscode.Uri subset extensions use (file and parsed URIs).
const path = require('node:path');

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    Object.assign(this, { scheme, authority: authority || '', path: p || '/', query: query || '', fragment: fragment || '' });
  }
  static file(p) { return new Uri('file', '', path.resolve(p).split(path.sep).join('/')); }
  static parse(s) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) throw new Error(`not a URI: ${s}`);
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
  }
  static from(c) { return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment); }
  static joinPath(u, ...segs) { return u.with({ path: path.posix.join(u.path, ...segs) }); }
  get fsPath() { return this.scheme === 'file' ? path.normalize(this.path) : this.path; }
  with(c) { return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment); }
  toString() {
    return `${this.scheme}:${this.authority || this.scheme === 'file' ? '//' + this.authority : ''}${encodeURI(this.path)}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }
  toJSON() { return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment, fsPath: this.fsPath }; }
}

module.exports = { Uri };
