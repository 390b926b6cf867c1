// @ts-check
'use strict';
// vscode.Uri with VS Code's semantics: parsing (RFC 3986 split, percent-
// decoding), the aggressive encoding of toString, fsPath and the
// factories. POSIX only: Windows paths (backslashes) are out of scope.
const posix = require('node:path').posix;

// The RFC 3986 appendix B split: scheme, authority, path, query, fragment.
const SPLIT = /^(([^:/?#]+?):)?(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?/;
const SCHEME = /^\w[\w\d+.-]*$/;
const SINGLE_SLASH_START = /^\//;
const DOUBLE_SLASH_START = /^\/\//;

// percentDecode decodes each run of %XX escapes; a run that is not valid
// UTF-8 is decoded as far as it can be, the rest kept as written.
function percentDecode(s) {
  if (!s.includes('%')) return s;
  return s.replace(/(%[0-9A-Fa-f]{2})+/g, decodeRun);
}

function decodeRun(run) {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.length > 3 ? run.slice(0, 3) + decodeRun(run.slice(3)) : run;
  }
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

// encode percent-encodes every character but the unreserved ones ('/' in
// a path and '[', ']', ':' in an authority are kept too), as UTF-8 bytes
// in upper-case hex: VS Code's Uri.toString().
function encode(s, isPath, isAuthority) {
  let out = '';
  for (const ch of s) {
    if (UNRESERVED.test(ch) || (isPath && ch === '/') || (isAuthority && (ch === '[' || ch === ']' || ch === ':'))) {
      out += ch;
    } else {
      for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
    }
  }
  return out;
}

// encodeMinimal encodes only '#' and '?': toString(true).
function encodeMinimal(s) {
  return s.replace(/[#?]/g, (c) => (c === '#' ? '%23' : '%3F'));
}

// lowerDrive lower-cases a Windows drive letter at the start of a path
// (/C:/x or C:/x), as VS Code does when formatting.
function lowerDrive(p) {
  if (/^\/[A-Z]:/.test(p)) return '/' + p[1].toLowerCase() + p.slice(2);
  if (/^[A-Z]:/.test(p)) return p[0].toLowerCase() + p.slice(1);
  return p;
}

// Uri: an immutable Uniform Resource Identifier (vscode.Uri).
class Uri {
  #formatted;
  #fsPath;

  // Use Uri.parse, Uri.file and Uri.from; the constructor takes the five
  // components (or one object holding them) and strict, which makes a
  // missing scheme an error instead of 'file'.
  constructor(scheme, authority, path, query, fragment, strict = false) {
    if (scheme && typeof scheme === 'object') {
      ({ scheme, authority, path, query, fragment } = scheme);
      strict = false;
    }
    scheme = scheme || '';
    if (!scheme && !strict) scheme = 'file';
    path = path || '';
    if (scheme === 'file' || scheme === 'http' || scheme === 'https') {
      if (!path) path = '/';
      else if (path[0] !== '/') path = '/' + path;
    }
    // Declarations only (defined read-only below).
    /** @type {string} */
    this.scheme;
    /** @type {string} */
    this.authority;
    /** @type {string} */
    this.path;
    /** @type {string} */
    this.query;
    /** @type {string} */
    this.fragment;
    for (const [k, v] of Object.entries({ scheme, authority: authority || '', path, query: query || '', fragment: fragment || '' })) {
      Object.defineProperty(this, k, { value: v, enumerable: true, writable: false, configurable: false });
    }
    validate(this, strict);
  }

  // isUri reports whether thing is a Uri or looks exactly like one.
  static isUri(thing) {
    if (thing instanceof Uri) return true;
    if (!thing || typeof thing !== 'object') return false;
    return typeof thing.authority === 'string' && typeof thing.fragment === 'string' && typeof thing.path === 'string'
      && typeof thing.query === 'string' && typeof thing.scheme === 'string' && typeof thing.fsPath === 'string'
      && typeof thing.with === 'function' && typeof thing.toString === 'function';
  }

  // parse makes a Uri of its string form, percent-decoding each component.
  // Without a scheme the Uri is a file one, unless strict, when it throws.
  static parse(value, strict = false) {
    const m = SPLIT.exec(String(value));
    if (!m) return new Uri('', '', '', '', '', strict);
    return new Uri(m[2] || '', percentDecode(m[4] || ''), percentDecode(m[5] || ''), percentDecode(m[7] || ''), percentDecode(m[9] || ''), strict);
  }

  // file makes a file Uri of a path; '//server/share/x' is a UNC path
  // whose server becomes the authority.
  static file(p) {
    p = String(p);
    let authority = '';
    if (p[0] === '/' && p[1] === '/') {
      const i = p.indexOf('/', 2);
      if (i === -1) {
        authority = p.slice(2);
        p = '/';
      } else {
        authority = p.slice(2, i);
        p = p.slice(i) || '/';
      }
    }
    return new Uri('file', authority, p, '', '');
  }

  // from makes a Uri of its components; the scheme is required.
  static from(c, strict = true) {
    if (!c || typeof c !== 'object') throw new TypeError('[UriError]: Uri.from needs the components of a Uri');
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment, strict);
  }

  // joinPath joins path segments onto base's path (POSIX rules: '..' and
  // '.' resolved, repeated slashes collapsed); base must have a path.
  static joinPath(base, ...segments) {
    if (!base || !base.path) throw new Error('[UriError]: cannot call joinPath on URI without path');
    return base.with({ path: posix.join(base.path, ...segments) });
  }

  // revive turns toJSON's output (or any Uri-like components) back into
  // a Uri; undefined and null pass through.
  static revive(data) {
    if (data === undefined || data === null || data instanceof Uri) return data;
    return new Uri(data.scheme, data.authority, data.path, data.query, data.fragment);
  }

  // fsPath is the file system path: the path, or //authority/path for a
  // UNC file Uri, with a Windows drive letter lower-cased.
  get fsPath() {
    if (this.#fsPath === undefined) {
      const p = this.path;
      if (this.authority && p.length > 1 && this.scheme === 'file') this.#fsPath = `//${this.authority}${p}`;
      else if (/^\/[A-Za-z]:/.test(p)) this.#fsPath = p[1].toLowerCase() + p.slice(2);
      else this.#fsPath = p;
    }
    return this.#fsPath;
  }

  // with returns a Uri with the given components changed (null or ''
  // unsets one); this Uri itself when nothing changes.
  with(change) {
    if (!change) return this;
    const pick = (k) => (change[k] === undefined ? this[k] : change[k] === null ? '' : change[k]);
    const [scheme, authority, path, query, fragment] = ['scheme', 'authority', 'path', 'query', 'fragment'].map(pick);
    if (scheme === this.scheme && authority === this.authority && path === this.path && query === this.query && fragment === this.fragment) return this;
    return new Uri(scheme, authority, path, query, fragment);
  }

  // toString formats the Uri, percent-encoding aggressively (':' in a
  // path, '&' and '=' in a query...) unless skipEncoding, when only '#'
  // and '?' are encoded.
  toString(skipEncoding = false) {
    if (skipEncoding) return format(this, true);
    if (this.#formatted === undefined) this.#formatted = format(this, false);
    return this.#formatted;
  }

  // toJSON is the Uri's components, fsPath and string form ($mid 1 marks
  // a Uri, as VS Code marshals one).
  toJSON() {
    return { $mid: 1, scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment, fsPath: this.fsPath, external: this.toString() };
  }
}

// validate throws VS Code's errors for a malformed Uri.
function validate(u, strict) {
  if (!u.scheme && strict) {
    throw new Error(`[UriError]: Scheme is missing: {scheme: "", authority: "${u.authority}", path: "${u.path}", query: "${u.query}", fragment: "${u.fragment}"}`);
  }
  if (u.scheme && !SCHEME.test(u.scheme)) throw new Error('[UriError]: Scheme contains illegal characters.');
  if (u.path) {
    if (u.authority) {
      if (!SINGLE_SLASH_START.test(u.path)) {
        throw new Error('[UriError]: If a URI contains an authority component, then the path component must either be empty or begin with a slash ("/") character');
      }
    } else if (DOUBLE_SLASH_START.test(u.path)) {
      throw new Error('[UriError]: If a URI does not contain an authority component, then the path cannot begin with two slash characters ("//")');
    }
  }
}

// format is Uri.toString.
function format(u, skipEncoding) {
  const enc = skipEncoding ? (s) => encodeMinimal(s) : encode;
  let res = '';
  if (u.scheme) res += u.scheme + ':';
  if (u.authority || u.scheme === 'file') res += '//';
  if (u.authority) {
    let auth = u.authority;
    const at = auth.indexOf('@');
    if (at !== -1) {
      const userinfo = auth.slice(0, at);
      auth = auth.slice(at + 1);
      const colon = userinfo.lastIndexOf(':');
      if (colon === -1) res += enc(userinfo, false, false);
      else res += enc(userinfo.slice(0, colon), false, false) + ':' + enc(userinfo.slice(colon + 1), false, true);
      res += '@';
    }
    auth = auth.toLowerCase();
    const colon = auth.lastIndexOf(':');
    if (colon === -1) res += enc(auth, false, true);
    else res += enc(auth.slice(0, colon), false, true) + auth.slice(colon);
  }
  if (u.path) res += enc(lowerDrive(u.path), true, false);
  if (u.query) res += '?' + enc(u.query, false, false);
  if (u.fragment) res += '#' + (skipEncoding ? u.fragment : encode(u.fragment, false, false));
  return res;
}

module.exports = { Uri };
