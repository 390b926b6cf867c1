"use strict";
// escape-suite: a hostile extension for airvsx's kernel sandbox tests
// (hostlaunch/sandbox/escape_test.go). Each command escape.<case> tries one
// way out of the extension host and reports, never throws:
//
//   {escaped: bool, error: "<code>: <message>", detail: ...}
//
// Its one argument comes from the test: {mode, ws, outside, secret,
// outsideDir, port, udpPort, dnsPort, dnsName, sock, abstract, envName,
// envSecret, environNeedle, marker, installed, victim, victimPid, launcherPid,
// victimStorage, victimCommand, big}.
// mode "probe" bounds the bombs so they cannot harm an unconfined run;
// "attack" goes on until something stops it (within a last bound).
const vscode = require("vscode");
const path = require("path");

const WAIT_MS = 3000;

// Built-in modules are required when a case runs, so that with the
// JavaScript seat belt on the refusal is that case's result.
const req = (name) => require(name);

function errText(err) {
  if (!err) return "";
  const c = err.cause || {};
  const code = err.code || c.code || (typeof err.errno === "string" ? err.errno : "") || err.name || "Error";
  let msg = String(err.message || err);
  if (c.message && !msg.includes(c.message)) msg += " (" + c.message + ")";
  return code + ": " + msg;
}
const escaped = (detail) => ({ escaped: true, error: "", detail });
const denied = (err, detail) => ({ escaped: false, error: typeof err === "string" ? err : errText(err), detail });

// within settles with fn's promise, or with a timeout denial.
function within(ms, fn) {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(denied("ETIMEDOUT: no answer within " + ms + " ms")), ms);
    Promise.resolve().then(fn).then(
      (r) => { clearTimeout(t); resolve(r); },
      (e) => { clearTimeout(t); resolve(denied(e)); }
    );
  });
}

// errnoName turns a negative errno (process.binding results) into its name.
function errnoName(n) {
  const os = req("os");
  for (const [k, v] of Object.entries(os.constants.errno)) if (v === -n) return k;
  return "errno " + -n;
}

function readSecret(file, a) {
  const got = req("fs").readFileSync(file, "utf8");
  return got === a.secret ? escaped("read the secret through " + file) : denied("EUNEXPECTED: read " + JSON.stringify(got.slice(0, 40)));
}

const ldso = () => (process.arch === "arm64" ? "/lib/ld-linux-aarch64.so.1" : "/lib64/ld-linux-x86-64.so.2");

// spawnResult turns a spawnSync result into a case result: want is what
// the program prints when it ran. A program that started but was refused
// what it needed (the interpreter could not map its program) reports the
// errno in its message.
function spawnResult(r, want) {
  if (r.error) return denied(r.error);
  const out = String(r.stdout || "");
  if (out.includes(want)) return escaped({ status: r.status, stdout: out.trim() });
  const errs = String(r.stderr || "").trim();
  // ld.so says "failed to map segment" when mmap(PROT_EXEC) fails: EPERM
  // on a noexec mount.
  const errno = /Permission denied/.test(errs) ? "EACCES" : /Operation not permitted|failed to map segment/.test(errs) ? "EPERM" : "";
  if (errno) return denied(errno + ": it started, then: " + errs);
  return denied("EUNEXPECTED: status " + r.status + " signal " + r.signal + " stdout " + JSON.stringify(out) + " stderr " + JSON.stringify(String(r.stderr || "")));
}

// connect opens a stream socket (TCP or Unix) and reports the connection.
function connect(opts) {
  return new Promise((resolve) => {
    const s = req("net").connect(opts);
    s.on("connect", () => { s.destroy(); resolve(escaped("connected to " + JSON.stringify(opts))); });
    s.on("error", (e) => resolve(denied(e)));
  });
}

// loadAddon dlopens file with the marker set; the addon's constructor
// writing the marker is what proves native code ran.
function loadAddon(file, a) {
  const fs = req("fs");
  process.env.AIRVSX_ESCAPE_MARKER = a.marker;
  let err = null;
  try {
    process.dlopen({ exports: {} }, file);
  } catch (e) {
    err = e;
  }
  if (fs.existsSync(a.marker)) return escaped("the addon's code ran: " + (err ? errText(err) : "loaded"));
  return denied(err || "EUNEXPECTED: loaded, but its constructor did not run");
}

// nodeAgain starts node again with NODE_OPTIONS pointing at inject.js,
// which writes the marker if it runs.
function nodeAgain(a, start) {
  const fs = req("fs");
  process.env.NODE_OPTIONS = "--require " + path.join(__dirname, "inject.js");
  process.env.AIRVSX_INJECT_MARKER = a.marker;
  return new Promise((resolve) => {
    let child;
    try {
      child = start(req("child_process"));
    } catch (e) {
      return resolve(denied(e));
    }
    child.on("error", (e) => resolve(denied(e)));
    child.on("exit", (code, sig) => {
      if (fs.existsSync(a.marker)) resolve(escaped("inject.js ran in the new node"));
      else resolve(denied("EUNEXPECTED: node exited " + code + " " + sig + " without running inject.js"));
    });
  }).finally(() => { delete process.env.NODE_OPTIONS; });
}

const cases = {
  "read-passwd": () => {
    const s = req("fs").readFileSync("/etc/passwd", "utf8");
    return s.includes("root:") ? escaped(s.split("\n")[0]) : denied("EUNEXPECTED: no root entry");
  },
  "read-symlink": (a) => readSecret(path.join(a.ws, "link"), a),
  "symlink-create": (a) => {
    const l = path.join(a.ws, "made-link");
    req("fs").symlinkSync(a.outside, l);
    return readSecret(l, a);
  },
  "hardlink-create": (a) => {
    const l = path.join(a.ws, "hard-link");
    req("fs").linkSync(a.outside, l);
    return readSecret(l, a);
  },
  "read-proc-root": (a) => readSecret("/proc/self/root" + a.outside, a),
  "readdir-outside": (a) => {
    const names = req("fs").readdirSync(a.outsideDir);
    return escaped(names);
  },
  "write-outside": (a) => {
    const f = path.join(a.outsideDir, "written-by-extension");
    req("fs").writeFileSync(f, "escaped\n");
    return escaped("wrote " + f);
  },
  "write-own-folder": () => {
    const f = path.join(__dirname, "written-by-extension");
    req("fs").writeFileSync(f, "escaped\n");
    return escaped("wrote " + f);
  },
  "tcp-connect": (a) => connect({ host: "127.0.0.1", port: a.port }),
  "http-get": (a) => new Promise((resolve) => {
    req("http").get("http://127.0.0.1:" + a.port + "/", (res) => {
      let body = "";
      res.on("data", (d) => { body += d; });
      res.on("end", () => resolve(body.includes("airvsx-escape") ? escaped(body.trim()) : denied("EUNEXPECTED: body " + JSON.stringify(body))));
    }).on("error", (e) => resolve(denied(e)));
  }),
  "fetch": async (a) => {
    const res = await fetch("http://127.0.0.1:" + a.port + "/");
    const body = await res.text();
    return body.includes("airvsx-escape") ? escaped(body.trim()) : denied("EUNEXPECTED: body " + JSON.stringify(body));
  },
  "tcp-listen": () => new Promise((resolve) => {
    const srv = req("net").createServer();
    srv.on("error", (e) => resolve(denied(e)));
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close();
      resolve(escaped("listening on " + JSON.stringify(addr)));
    });
  }),
  "udp-send": (a) => new Promise((resolve) => {
    const s = req("dgram").createSocket("udp4");
    s.on("error", (e) => { s.close(); resolve(denied(e)); });
    s.send(Buffer.from("airvsx-escape"), a.udpPort, "127.0.0.1", (e) => {
      s.close();
      resolve(e ? denied(e) : escaped("sent to 127.0.0.1:" + a.udpPort));
    });
  }),
  "dns-lookup": (a) => new Promise((resolve) => {
    req("dns").lookup(a.dnsName, { all: true }, (e, addrs) => resolve(e ? denied(e) : escaped(addrs)));
  }),
  "dns-resolve": (a) => {
    const dns = req("dns");
    const r = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
    r.setServers(["127.0.0.1:" + a.dnsPort]);
    return r.resolve4("escape.airvsx.test").then((addrs) => escaped(addrs));
  },
  "unix-connect": (a) => connect({ path: a.sock }),
  "unix-abstract": (a) => connect({ path: "\0" + a.abstract }),
  "spawn-sh": () => spawnResult(req("child_process").spawnSync("/bin/sh", ["-c", "echo escaped"], { timeout: WAIT_MS }), "escaped"),
  "execfile-sh": () => new Promise((resolve) => {
    req("child_process").execFile("/bin/sh", ["-c", "echo escaped"], { timeout: WAIT_MS }, (e, stdout) =>
      resolve(e ? denied(e) : String(stdout).includes("escaped") ? escaped(String(stdout).trim()) : denied("EUNEXPECTED: " + stdout)));
  }),
  "exec-script": () => spawnResult(req("child_process").spawnSync(path.join(__dirname, "bin", "run.sh"), [], { timeout: WAIT_MS }), "escaped"),
  "exec-workspace-copy": (a) => {
    // The extension's own program copied into the (writable) workspace
    // and made executable there.
    const fs = req("fs");
    const copy = path.join(a.ws, "hello-copy");
    fs.copyFileSync(path.join(__dirname, "bin", "hello"), copy);
    fs.chmodSync(copy, 0o755);
    return spawnResult(req("child_process").spawnSync(copy, [], { timeout: WAIT_MS }), "escaped");
  },
  // The ELF interpreter, which node needs, runs a program it is given by
  // mapping it itself, without an execve of the program: an execute rule
  // on the interpreter alone does not stop that.
  "ldso-sh": () => spawnResult(req("child_process").spawnSync(ldso(), ["/bin/sh", "-c", "echo escaped"], { timeout: WAIT_MS }), "escaped"),
  "ldso-own": () => spawnResult(req("child_process").spawnSync(ldso(), [path.join(__dirname, "bin", "hello")], { timeout: WAIT_MS }), "escaped"),
  "exec-int80": (a) => {
    // Running at all is the escape (execution outside node); whether the
    // i386 connect worked is in the detail (and the test's server counts
    // the connection).
    const r = req("child_process").spawnSync(path.join(__dirname, "bin", "int80"), [String(a.port)], { timeout: WAIT_MS });
    if (r.error) return denied(r.error);
    const how = r.signal ? "killed by " + r.signal : r.status === 0 ? "connected" : r.status < 128 ? "socket: " + errnoName(-r.status) : "connect: " + errnoName(128 - r.status);
    return escaped({ ran: true, i386: how, status: r.status, signal: r.signal });
  },
  "binding-spawn": () => {
    const pipe = { type: "pipe", readable: true, writable: true };
    const r = process.binding("spawn_sync").spawn({
      file: "/bin/sh", args: ["/bin/sh", "-c", "echo escaped"], envPairs: [], timeout: WAIT_MS,
      stdio: [{ type: "ignore" }, pipe, { type: "ignore" }],
    });
    if (r.error) return denied(errnoName(r.error) + ": spawn_sync /bin/sh");
    const out = r.output && r.output[1] ? String(r.output[1]) : "";
    return out.includes("escaped") ? escaped(out.trim()) : denied("EUNEXPECTED: status " + r.status + " signal " + r.signal);
  },
  "getbuiltin-fs": () => {
    // process.getBuiltinModule (node >= 20.16) hands out built-ins
    // without require: the seat belt's require gate never sees it.
    const fs = typeof process.getBuiltinModule === "function" ? process.getBuiltinModule("fs") : req("fs");
    const s = fs.readFileSync("/etc/passwd", "utf8");
    return s.includes("root:") ? escaped(s.split("\n")[0]) : denied("EUNEXPECTED: no root entry");
  },
  "binding-fs": () => {
    const s = process.binding("fs").readFileUtf8("/etc/passwd", 0);
    return s.includes("root:") ? escaped(s.split("\n")[0]) : denied("EUNEXPECTED: no root entry");
  },
  "addon-own": (a) => loadAddon(path.join(__dirname, "native", "addon.node"), a),
  "addon-workspace": (a) => {
    const copy = path.join(a.ws, "addon-copy.node");
    req("fs").copyFileSync(path.join(__dirname, "native", "addon.node"), copy);
    return loadAddon(copy, a);
  },
  "worker": () => new Promise((resolve) => {
    const { Worker } = req("worker_threads");
    const w = new Worker(
      "const { parentPort } = require('worker_threads');" +
      "try { parentPort.postMessage({ ok: require('fs').readFileSync('/etc/passwd', 'utf8').split('\\n')[0] }); }" +
      "catch (e) { parentPort.postMessage({ err: (e.code || e.name) + ': ' + e.message }); }",
      { eval: true });
    w.on("message", (m) => { w.terminate(); resolve(m.ok ? escaped("the worker read " + m.ok) : denied(m.err)); });
    w.on("error", (e) => resolve(denied(e)));
  }),
  "signal-parent-0": () => {
    process.kill(process.ppid, 0);
    return escaped("signal 0 to " + process.ppid);
  },
  "signal-parent-term": () => {
    process.kill(process.ppid, "SIGTERM");
    return escaped("SIGTERM to " + process.ppid);
  },
  "env-secret": (a) => {
    const v = process.env[a.envName];
    return v === a.envSecret ? escaped(a.envName + " is in process.env") : denied("ENOENT: " + a.envName + " is not in process.env");
  },
  "environ-parent": (a) => {
    // environNeedle is a line of the launcher's initial environment.
    const f = "/proc/" + process.ppid + "/environ";
    const s = req("fs").readFileSync(f, "utf8");
    return s.split("\0").includes(a.environNeedle) ? escaped("read the launcher's environment in " + f) : denied("EUNEXPECTED: read " + f + ", without " + JSON.stringify(a.environNeedle));
  },
  "readdir-parent-cwd": () => {
    const d = "/proc/" + process.ppid + "/cwd";
    return escaped(req("fs").readdirSync(d).length + " names in the launcher's working directory " + d);
  },
  "node-options-fork": (a) => nodeAgain(a, (cp) => cp.fork(path.join(__dirname, "child.js"), [], { stdio: "ignore" })),
  "node-options-spawn": (a) => nodeAgain(a, (cp) => cp.spawn(process.execPath, ["-e", "0"], { stdio: "ignore" })),
  "fork-bomb": (a) => new Promise((resolve) => {
    // Probe: 64 sleeping nodes at once is proof enough; attack: 200
    // attempts at most, each child gone within 3 s.
    const cp = req("child_process");
    const limit = a.mode === "probe" ? 64 : 200;
    const kids = [];
    let started = 0, settled = 0, firstErr = null;
    const done = () => {
      for (const k of kids) try { k.kill("SIGKILL"); } catch {}
      resolve(started >= limit ? escaped(started + " processes started") : denied(firstErr || "EUNEXPECTED: only " + started + " started"));
    };
    for (let i = 0; i < limit; i++) {
      let k;
      try {
        k = cp.spawn(process.execPath, ["--max-old-space-size=8", "-e", "setTimeout(() => {}, 3000)"], { stdio: "ignore" });
      } catch (e) {
        firstErr = firstErr || e;
        if (++settled === limit) done();
        continue;
      }
      kids.push(k);
      k.on("spawn", () => { started++; if (++settled === limit) done(); });
      k.on("error", (e) => { firstErr = firstErr || e; if (++settled === limit) done(); });
    }
  }),
  "memory-bomb": async (a) => {
    // Touched 16 MiB buffers: probe stops at 300 MiB, attack at 3 GiB
    // (if nothing killed the host before, that is an escape).
    const limit = a.mode === "probe" ? 300 : 3072;
    const keep = [];
    try {
      for (let mb = 0; mb < limit; mb += 16) {
        keep.push(Buffer.alloc(16 << 20, 1));
        await new Promise((r) => setTimeout(r, 2));
      }
    } catch (e) {
      return denied(e, keep.length * 16 + " MiB allocated");
    }
    return escaped(keep.length * 16 + " MiB allocated");
  },
  // Landlock does not restrict stat; the private root holds no path
  // outside.
  "stat-outside": (a) => {
    const st = req("fs").statSync(a.outside);
    return escaped("size " + st.size);
  },
  // The extensions directory's installed.json records what the policy
  // granted: give this extension spawn and a program.
  "grant-rewrite": (a) => {
    const fs = req("fs");
    const x = JSON.parse(fs.readFileSync(a.installed, "utf8"));
    for (const r of x.extensions) {
      r.capabilities = [{ capability: "spawn", rule: "escape" }];
      r.programs = ["/usr/bin/python3"];
    }
    fs.writeFileSync(a.installed, JSON.stringify(x));
    return escaped("rewrote " + a.installed);
  },
  // Another extension's state.
  "storage-other": (a) => {
    const f = path.join(a.victimStorage, "globalState.json");
    req("fs").writeFileSync(f, JSON.stringify({ written: "by escape-suite" }));
    return escaped("wrote " + f);
  },
  // A process of the user's that has nothing to do with the host.
  "signal-other": (a) => {
    process.kill(a.victimPid, "SIGKILL");
    return escaped("SIGKILL to " + a.victimPid);
  },
  // The launcher, named by its pid (not as the parent: in a PID namespace
  // the parent is the sandbox's own init).
  "signal-launcher": (a) => {
    process.kill(a.launcherPid, "SIGTERM");
    return escaped("SIGTERM to " + a.launcherPid);
  },
  // 400 reads of an 8 MiB workspace file, none awaited: the launcher,
  // outside every sandbox, serves them.
  "launcher-flood": async (a) => {
    const n = 400;
    const uri = vscode.Uri.file(a.big);
    const results = await Promise.allSettled(Array.from({ length: n }, () => vscode.workspace.fs.readFile(uri)));
    let ok = 0, busy = 0, other = "";
    for (const r of results) {
      if (r.status === "fulfilled") ok++;
      else if (r.reason && r.reason.code === "ERR_AIRVSX_BUSY") busy++;
      else other = other || errText(r.reason);
    }
    const detail = { ok, busy, other };
    return ok === n ? escaped(detail) : denied("ERR_AIRVSX_BUSY: " + busy + " of " + n + " refused, " + ok + " served", detail);
  },
  // Messages under another extension's name: lifecycle events, events the
  // launcher alone reports, a command another host's extension declares,
  // a broker request. The test reads what the launcher made of them.
  "forge-identity": async (a) => {
    const ev = (params) => process.send({ jsonrpc: "2.0", method: "event", params });
    ev({ kind: "activating", extension: a.victim });
    ev({ kind: "activated", extension: a.victim });
    ev({ kind: "message", level: "info", extension: a.victim, text: "forged message" });
    ev({ kind: "warning", text: "forged warning" });
    ev({ kind: "audit", extension: a.victim, text: "forged audit", audit: { extension: a.victim, kind: "spawn", allowed: true } });
    ev({ kind: "message", level: "info", extension: "\u001b[31m" + a.victim + "\u202e", text: "forged escape" });
    process.send({ jsonrpc: "2.0", method: "commands/registered", params: { command: a.victimCommand } });
    return denied("EFORGED: sent; the launcher's records decide");
  },
  // A forged activation of another host's extension, then the host hangs
  // (so it is killed): the launcher must not blame that extension.
  "forge-crash": (a) => {
    process.send({ jsonrpc: "2.0", method: "event", params: { kind: "activating", extension: a.victim } });
    return new Promise(() => { setTimeout(() => { for (;;) {} }, 100); });
  },
  // A dependency granted spawn runs in another host: ask its broker as it,
  // and reach for its exports.
  "dependency-grant": (a) => new Promise((resolve) => {
    const id = 7e9;
    const detail = {};
    try { detail.exports = typeof vscode.extensions.getExtension(a.victim).exports.run; } catch (e) { detail.exports = errText(e); }
    const t = setTimeout(() => resolve(denied("ETIMEDOUT: no answer", detail)), WAIT_MS);
    process.on("message", function answer(m) {
      if (!m || m.id !== id) return;
      process.off("message", answer);
      clearTimeout(t);
      if (m.error) resolve(denied((m.error.code === -32002 ? "ERR_AIRVSX_DENIED: " : "ERROR: ") + m.error.message, detail));
      else resolve(escaped(Object.assign(detail, { result: m.result })));
    });
    process.send({ jsonrpc: "2.0", id, method: "spawn/run", params: { extension: a.victim, file: "/bin/touch", args: [a.marker], cwd: "", timeoutMs: 3000, input: "", token: "" } });
  }),
};

function activate(context) {
  for (const [name, run] of Object.entries(cases)) {
    const ms = name === "memory-bomb" || name === "fork-bomb" ? 60000 : name === "launcher-flood" ? 30000 : name === "forge-crash" ? 600000 : WAIT_MS;
    context.subscriptions.push(vscode.commands.registerCommand("escape." + name, (a) => within(ms, () => run(a || {}))));
  }
}

function deactivate() {}

module.exports = { activate, deactivate };
