// @ts-check
'use strict';
// The child_process an extension granted "spawn" gets. Node's own cannot
// work (the kernel sandbox refuses fork and exec inside the host): every
// program is started by the launcher's spawn broker, which starts it only
// if the extension's policy lists it (programs), in a working directory
// inside the workspace, with an environment built from nothing
// (options.env is ignored), in a sandbox of its own, and audits it.
//
// spawn() streams, as a language client needs (vscode-languageclient
// talks to its server over stdio for the whole session): "spawn/start"
// {extension, cause, file, args, cwd, timeoutMs, token} starts the
// program ('spawn' once started, 'error' with ERR_AIRVSX_DENIED when
// refused, ERR_AIRVSX_BUSY past the 8 streams a host may run at once);
// its output comes as "spawn/data" requests {token, stream, data
// (base64)}, each answered once pushed into child.stdout or
// child.stderr and wanted (a slow reader makes the program wait, as a
// pipe does); "spawn/exit" {token, code, signal} ends both and emits
// 'exit' and 'close'. child.stdin's writes are "spawn/write" {extension,
// token, data}, each calling back once the program took it; its end is
// "spawn/end". A stream has no deadline unless options.timeout gives one.
//
// child.pid is a virtual pid, set as spawn() returns: a brokered
// process handle (from 1 << 22 up, above every real pid Linux gives),
// never a real process's. kill() and process.kill(child.pid, signal)
// signal the program's process group through the broker ("spawn/kill":
// SIGTERM, SIGKILL, SIGINT, SIGHUP; 0 only tells whether it runs).
//
// execFile and exec run the program to its end ("spawn/run"): output
// capped at 1 MiB a stream, a deadline (options.timeout, default 30 s, at
// most 5 min); stdin is what was written to it before the request leaves
// (options.input, or stdin.end() by the end of the tick).
//
// The *Sync variants cannot be brokered (the broker is asynchronous).
// fork starts node (process.execPath: the policy must list it) as spawn
// does, its IPC channel carried over the program's stdin and stdout
// (FORK_BOOT), as node's own channel is a socket the kernel sandbox
// refuses: vscode-languageclient's ipc transport works as its stdio one.
const crypto = require('node:crypto');
const { EventEmitter } = require('node:events');
const path = require('node:path');
const { Readable, Writable } = require('node:stream');
const { fileURLToPath } = require('node:url');
const util = require('node:util');

// nextPid is the next virtual pid (see above): 1 << 22 is PID_MAX_LIMIT,
// above every pid Linux gives.
let nextPid = 1 << 22;

// ChildProcess is the class of what spawn returns.
class ChildProcess extends EventEmitter {
  constructor() {
    super();
    Object.assign(this, { pid: undefined, exitCode: null, signalCode: null, killed: false, connected: false });
    // The fields spawn, batch and fork set (declarations only: nothing is
    // assigned here).
    /** @type {number | undefined} */
    this.pid;
    /** @type {number | null} */
    this.exitCode;
    /** @type {string | null} */
    this.signalCode;
    /** @type {boolean} */
    this.killed;
    /** @type {boolean} */
    this.connected;
    /** @type {boolean | undefined} */
    this.timedOut;
    /** @type {boolean | undefined} */
    this.truncated;
    /** @type {any} the extension that started it */
    this._ext;
    /** @type {any} */
    this.stdin;
    /** @type {any} */
    this.stdout;
    /** @type {any} */
    this.stderr;
    /** @type {any[]} */
    this.stdio;
    /** @type {(signal?: string | number) => boolean} */
    this.kill;
    /** @type {(message: unknown, ...rest: any[]) => boolean} */
    this.send;
    /** @type {() => void} */
    this.disconnect;
    /** @type {any} */
    this._done;
  }

  ref() {}

  unref() {}
}

// FORK_BOOT is what node runs (-e) for fork(): argv is [node, module,
// args...]; process.send and 'message' go over stdin and stdout, one JSON
// message a line; the module's own stdout writes go to stderr; the end
// of stdin is the channel's disconnect. Then the module runs as main.
const FORK_BOOT = [
  "'use strict';",
  'const out = process.stdout.write.bind(process.stdout);',
  'process.stdout.write = process.stderr.write.bind(process.stderr);',
  'process.connected = true;',
  "process.send = (m, ...r) => { const cb = typeof r[r.length - 1] === 'function' ? r.pop() : undefined; out(JSON.stringify(m) + '\\n', cb); return true; };",
  "process.disconnect = () => { if (!process.connected) return; process.connected = false; process.stdin.pause(); process.emit('disconnect'); };",
  "let buf = ''; process.stdin.setEncoding('utf8');",
  "process.stdin.on('data', (d) => { buf += d; for (let i; (i = buf.indexOf('\\n')) >= 0;) { const l = buf.slice(0, i); buf = buf.slice(i + 1); if (l) process.emit('message', JSON.parse(l)); } });",
  "process.stdin.on('end', () => process.disconnect());",
  "require('module').runMain();",
].join('\n');

module.exports = function (host, ext) {
  const cause = () => { const s = host.als.getStore(); return s ? s.cause : undefined; };

  // refused is the error of a call the broker cannot serve.
  function refused(name, instead) {
    /** @type {HostError} */
    const err = new Error(`airvsx: extension ${ext.id} may not call child_process.${name}: brokered spawn is asynchronous${instead ? `; use child_process.${instead}` : ''}`);
    err.code = 'ERR_AIRVSX_DENIED';
    err.capability = 'spawn';
    host.emit(ext, 'denied', { text: err.message, capability: 'spawn' });
    return err;
  }

  // run asks the broker; it resolves with {code, signal, stdout, stderr
  // (Buffers), truncated, timedOut}.
  async function run(file, args, options, input, token) {
    if (typeof file !== 'string' || file === '') throw new TypeError('The "file" argument must be a non-empty string');
    args = Array.from(args || [], String);
    if (options.shell) {
      args = ['-c', [file, ...args].join(' ')];
      file = typeof options.shell === 'string' ? options.shell : '/bin/sh';
    }
    let cwd = options.cwd;
    if (cwd instanceof URL) cwd = fileURLToPath(cwd);
    const r = await host.request('spawn/run', {
      extension: ext.id, cause: cause(), file, args, cwd: cwd ? path.resolve(String(cwd)) : '',
      timeoutMs: options.timeout > 0 ? Math.floor(options.timeout) : 0,
      input: input && input.length ? Buffer.concat(input.map((c) => Buffer.from(c))).toString('base64') : '',
      token: token || '',
    });
    return Object.assign(r, { stdout: Buffer.from(r.stdout, 'base64'), stderr: Buffer.from(r.stderr, 'base64'), signal: r.signal || null });
  }

  // signalOf is the name of a signal given by name or number; undefined
  // for one the broker does not send.
  const SIGNALS = { 1: 'SIGHUP', 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM' };
  const signalOf = (sig) => (sig === undefined || sig === null ? 'SIGTERM'
    : typeof sig === 'number' ? SIGNALS[sig] : Object.values(SIGNALS).includes(String(sig)) ? String(sig) : undefined);

  // request asks the broker for the streamed program token.
  const ask = (method, token, fields) => host.request(method, Object.assign({ extension: ext.id, cause: cause(), token }, fields));

  // spawn starts file through the broker and returns a ChildProcess whose
  // streams are the program's, as it runs.
  function spawn(file, args, options) {
    if (args && !Array.isArray(args)) { options = args; args = []; }
    options = options || {};
    if (typeof file !== 'string' || file === '') throw new TypeError('The "file" argument must be a non-empty string');
    args = Array.from(args || [], String);
    const child = new ChildProcess();
    Object.assign(child, { spawnfile: file, spawnargs: [file, ...args] });
    if (options.shell) {
      args = ['-c', [file, ...args].join(' ')];
      file = typeof options.shell === 'string' ? options.shell : '/bin/sh';
    }
    let cwd = options.cwd;
    if (cwd instanceof URL) cwd = fileURLToPath(cwd);
    const store = host.als.getStore(); // the extension's context, for the events of the child
    const inContext = (fn) => (store ? host.als.run(store, fn) : fn());
    const token = crypto.randomUUID();
    const pid = nextPid++;
    child.pid = pid;
    child._ext = ext;
    let state = 'starting'; // 'running', 'ended', 'failed'
    const stdio = typeof options.stdio === 'string' ? [options.stdio, options.stdio, options.stdio] : options.stdio || [];
    const piped = (i) => stdio[i] === undefined || stdio[i] === null || stdio[i] === 'pipe' || stdio[i] === 'overlapped';

    // reader is an output stream: a chunk is answered for once pushed
    // while the stream wants more, else when it is read.
    const reader = () => {
      let wanted = null;
      /** @type {Readable & {_take?: (b: any) => Promise<any>}} */
      const r = new Readable({ read() { const w = wanted; wanted = null; if (w) w(); } });
      r.once('close', () => { const w = wanted; wanted = null; if (w) w(); });
      r._take = (b) => new Promise((resolve) => {
        if (r.destroyed || r.readableEnded) return resolve({});
        inContext(() => { if (r.push(b)) resolve({}); else wanted = () => resolve({}); });
      });
      return r;
    };
    const out = { stdout: reader(), stderr: reader() };
    const started = ask('spawn/start', token, {
      file, args, cwd: cwd ? path.resolve(String(cwd)) : '', timeoutMs: options.timeout > 0 ? Math.floor(options.timeout) : 0,
    });
    started.catch(() => {}); // reported through 'error'
    const stdin = new Writable({
      write(chunk, _enc, cb) {
        started.then(async () => {
          for (let i = 0; i < chunk.length; i += 1 << 20) {
            if (state !== 'running') throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
            await ask('spawn/write', token, { data: chunk.subarray(i, i + (1 << 20)).toString('base64') });
          }
        }).then(() => cb(), (err) => {
          // A refused start is the child's 'error'; a write after the end
          // is stdin's only for whoever listens.
          cb(state === 'failed' || stdin.listenerCount('error') === 0 ? null : err);
        });
      },
      final(cb) { started.then(() => state === 'running' && ask('spawn/end', token, {})).then(() => cb(), () => cb()); },
    });
    child.stdin = piped(0) ? stdin : null;
    child.stdout = piped(1) ? out.stdout : null;
    child.stderr = piped(2) ? out.stderr : null;
    if (!piped(0)) stdin.end();
    if (!piped(1)) out.stdout.resume();
    if (!piped(2)) out.stderr.resume();
    child.stdio = [child.stdin, child.stdout, child.stderr];
    host.children.set(pid, child);

    // close is emitted after exit once the output read is all read.
    let exited = false;
    const closing = () => {
      if (!exited) return;
      const pending = Object.values(out).some((r) => r.readableFlowing !== null && !r.readableEnded && !r.destroyed);
      if (!pending) { exited = false; setImmediate(() => inContext(() => child.emit('close', child.exitCode, child.signalCode))); }
    };
    for (const r of Object.values(out)) { r.on('end', closing); r.on('close', closing); }
    const forget = () => { host.streams.delete(token); host.children.delete(pid); };
    host.streams.set(token, {
      data: (name, data) => (out[name] ? out[name]._take(Buffer.from(data, 'base64')) : Promise.resolve({})),
      exit: (p) => {
        forget();
        state = 'ended';
        child.exitCode = p.code === undefined ? null : p.code;
        child.signalCode = p.signal || null;
        child.timedOut = !!p.timedOut;
        inContext(() => {
          for (const r of Object.values(out)) if (!r.destroyed) r.push(null);
          child.emit('exit', child.exitCode, child.signalCode);
        });
        exited = true;
        closing();
      },
    });
    started.then(() => {
      if (state !== 'starting') return;
      state = 'running';
      inContext(() => child.emit('spawn'));
    }, (err) => {
      forget();
      state = 'failed';
      child.pid = undefined; // nothing runs under it
      inContext(() => {
        for (const r of Object.values(out)) r.push(null);
        child.emit('error', err);
      });
      setImmediate(() => inContext(() => child.emit('close', -1, null)));
    });

    // kill signals the program's group through the broker.
    child.kill = (sig) => {
      const name = signalOf(sig);
      if (state === 'ended' || state === 'failed') return false;
      if (!name) throw Object.assign(new Error(`airvsx: the spawn broker sends SIGTERM, SIGKILL, SIGINT or SIGHUP, not ${sig}`), { code: 'ERR_UNKNOWN_SIGNAL' });
      child.killed = true;
      started.then(() => ask('spawn/kill', token, { signal: name })).catch(() => {});
      return true;
    };
    return child;
  }

  // batch runs file to its end (execFile): a ChildProcess-like emitter
  // whose stdin is collected and sent with the request, its stdout and
  // stderr Readables filled when it has ended.
  function batch(file, args, options) {
    if (args && !Array.isArray(args)) { options = args; args = []; }
    options = options || {};
    const child = new ChildProcess();
    Object.assign(child, { spawnfile: file, spawnargs: [file, ...(args || [])] });
    const input = [];
    let writing = false;
    child.stdin = new Writable({ write(chunk, _enc, cb) { writing = true; input.push(chunk); cb(); } });
    child.stdout = new Readable({ read() {} });
    child.stderr = new Readable({ read() {} });
    child.stdio = [child.stdin, child.stdout, child.stderr];
    const token = crypto.randomUUID();
    let state = 'waiting'; // 'running', 'done'; or the signal it was killed with before it ran
    // kill signals the program's process group through the broker.
    child.kill = (sig) => {
      sig = typeof sig === 'string' ? sig : 'SIGTERM';
      if (state === 'done') return false;
      child.killed = true;
      if (state !== 'running') { state = sig; return true; }
      host.request('spawn/kill', { extension: ext.id, cause: cause(), token, signal: sig }).catch(() => {});
      return true;
    };
    const go = () => (state !== 'waiting' ? Promise.resolve({ code: null, signal: state, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), truncated: false, timedOut: false })
      : (state = 'running', run(file, args, options, input, token))).then((r) => {
      state = 'done';
      child.exitCode = r.code;
      child.signalCode = r.signal;
      child.truncated = r.truncated; // output past 1 MiB a stream was dropped
      child.stdout.push(r.stdout); child.stdout.push(null);
      child.stderr.push(r.stderr); child.stderr.push(null);
      child.emit('exit', r.code, r.signal);
      setImmediate(() => child.emit('close', r.code, r.signal));
      return r;
    }, (err) => {
      state = 'done';
      child.stdout.push(null);
      child.stderr.push(null);
      child.emit('error', err);
      setImmediate(() => child.emit('close', -1, null));
      throw err;
    });
    child._done = new Promise((resolve, reject) => setImmediate(() => {
      const start = () => go().then(resolve, reject);
      if (writing && !child.stdin.writableFinished) child.stdin.once('finish', start); else start();
    }));
    child._done.catch(() => {}); // reported through 'error'
    return child;
  }

  // execFile runs file and calls back (err, stdout, stderr) once it ends;
  // err is set when it exits with a code other than 0 or by a signal.
  function execFile(file, args, options, callback) {
    if (typeof args === 'function') { callback = args; args = []; options = {}; }
    else if (args && !Array.isArray(args)) { callback = options; options = args; args = []; }
    if (typeof options === 'function') { callback = options; options = {}; }
    options = options || {};
    args = args || [];
    const enc = options.encoding === undefined ? 'utf8' : options.encoding;
    const out = (b) => (enc && enc !== 'buffer' ? b.toString(enc) : b);
    const child = batch(file, args, { ...options });
    if (options.input !== undefined) child.stdin.end(options.input);
    child.on('error', () => {}); // goes to the callback
    child._done.then((r) => {
      const stdout = out(r.stdout);
      const stderr = out(r.stderr);
      let err = null;
      if (r.truncated) {
        // As node's maxBuffer (1 MiB by default, the broker's cap).
        err = new RangeError('stdout or stderr maxBuffer length exceeded (the spawn broker keeps 1 MiB of each)');
        Object.assign(err, { code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER', cmd: [file, ...args].join(' '), stdout, stderr });
      } else if (r.code !== 0 || r.signal) {
        const cmd = [file, ...args].join(' ');
        err = new Error(`Command failed: ${cmd}${r.timedOut ? ' (killed at its deadline)' : ''}\n${r.stderr.toString()}`);
        Object.assign(err, { code: r.code, killed: !!r.signal, signal: r.signal, cmd, stdout, stderr });
      }
      if (callback) callback(err, stdout, stderr);
    }, (err) => {
      if (callback) callback(err, out(Buffer.alloc(0)), out(Buffer.alloc(0)));
    });
    return child;
  }
  const promised = (fn) => (...a) => new Promise((resolve, reject) => {
    fn(...a, (err, stdout, stderr) => (err ? reject(Object.assign(err, { stdout, stderr })) : resolve({ stdout, stderr })));
  });
  execFile[util.promisify.custom] = promised(execFile);

  // exec runs command with /bin/sh -c (so /bin/sh must be a listed program).
  function exec(command, options, callback) {
    if (typeof options === 'function') { callback = options; options = {}; }
    return execFile('/bin/sh', ['-c', String(command)], options || {}, callback);
  }
  exec[util.promisify.custom] = promised(exec);

  // fork runs a Node module in a new node (process.execPath, or
  // options.execPath: the program the policy must list) through the
  // broker, like spawn, with its IPC channel carried over the program's
  // stdin and stdout (one JSON message a line; FORK_BOOT sets up
  // process.send and 'message' in the child, whose own stdout goes to its
  // stderr): a socket, as node's channel is, the kernel sandbox refuses.
  // The serialization is 'json'; handles cannot be sent.
  function fork(modulePath, args, options) {
    if (args && !Array.isArray(args)) { options = args; args = []; }
    options = options || {};
    if (modulePath instanceof URL) modulePath = fileURLToPath(modulePath);
    if (typeof modulePath !== 'string' || modulePath === '') throw new TypeError('The "modulePath" argument must be a non-empty string');
    // --inspect and its kin would open a socket: dropped.
    const execArgv = Array.from(options.execArgv || [], String).filter((a) => !/^--(inspect|debug)/.test(a));
    const raw = spawn(options.execPath || process.execPath, [...execArgv, '-e', FORK_BOOT, '--', path.resolve(String(modulePath)), ...Array.from(args || [], String)],
      { cwd: options.cwd, timeout: options.timeout, stdio: 'pipe' });
    const child = raw;
    const channel = raw.stdout;
    // What the module writes to stdout arrives on stderr; stdout is empty.
    child.stdout = new Readable({ read() {} });
    child.stdio = [child.stdin, child.stdout, child.stderr, null];
    child.connected = true;
    let buf = '';
    channel.setEncoding('utf8');
    channel.on('data', (d) => {
      buf += d;
      for (let i; (i = buf.indexOf('\n')) >= 0;) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line) continue;
        let msg;
        try { msg = JSON.parse(line); } catch { continue; }
        child.emit('message', msg);
      }
    });
    child.send = (msg, ...rest) => {
      const cb = typeof rest[rest.length - 1] === 'function' ? rest.pop() : null;
      if (!child.connected) {
        const err = Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' });
        if (cb) process.nextTick(cb, err); else process.nextTick(() => child.emit('error', err));
        return false;
      }
      child.stdin.write(JSON.stringify(msg) + '\n', cb ? (err) => cb(err || null) : undefined);
      return true;
    };
    const gone = () => {
      if (!child.connected) return;
      child.connected = false;
      child.stdout.push(null);
      child.emit('disconnect');
    };
    child.disconnect = () => { child.stdin.end(); gone(); };
    child.on('exit', gone);
    child.on('error', gone);
    return child;
  }

  const sync = (name, instead) => function () { throw refused(name, instead); };
  return {
    spawn, execFile, exec,
    spawnSync: sync('spawnSync', 'spawn'),
    execFileSync: sync('execFileSync', 'execFile'),
    execSync: sync('execSync', 'exec'),
    fork,
    ChildProcess,
  };
};
