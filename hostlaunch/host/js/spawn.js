'use strict';
// The child_process an extension granted "spawn" gets. Node's own cannot
// work (the kernel sandbox refuses fork and exec inside the host): every
// call is a "spawn/run" request to the launcher's broker, which starts
// the program only if the extension's policy lists it (programs), in a
// working directory inside the workspace, with an environment built from
// nothing, output capped at 1 MiB a stream and a deadline (options.timeout,
// default 30 s, at most 5 min). The program's output arrives when it has
// ended; options.env is ignored; stdin is what was written to it before
// the request leaves (the end of the tick, or stdin.end() if writing
// started by then); kill() signals the program's process group through
// the broker ("spawn/kill"). The *Sync variants and fork cannot be
// brokered.
const crypto = require('node:crypto');
const { EventEmitter } = require('node:events');
const path = require('node:path');
const { Readable, Writable } = require('node:stream');
const { fileURLToPath } = require('node:url');
const util = require('node:util');

module.exports = function (host, ext) {
  const cause = () => { const s = host.als.getStore(); return s ? s.cause : undefined; };

  // refused is the error of a call the broker cannot serve.
  function refused(name, instead) {
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

  // spawn returns a ChildProcess-like emitter: stdin (collected), stdout
  // and stderr Readables, 'exit' and 'close' (code, signal), 'error'.
  function spawn(file, args, options) {
    if (args && !Array.isArray(args)) { options = args; args = []; }
    options = options || {};
    const child = new EventEmitter();
    Object.assign(child, { pid: undefined, exitCode: null, signalCode: null, killed: false, spawnfile: file, spawnargs: [file, ...(args || [])] });
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
    child.ref = child.unref = () => {};
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
    const child = spawn(file, args, { ...options });
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

  const sync = (name, instead) => function () { throw refused(name, instead); };
  return {
    spawn, execFile, exec,
    spawnSync: sync('spawnSync', 'spawn'),
    execFileSync: sync('execFileSync', 'execFile'),
    execSync: sync('execSync', 'exec'),
    fork: sync('fork', null),
    ChildProcess: EventEmitter,
  };
};
