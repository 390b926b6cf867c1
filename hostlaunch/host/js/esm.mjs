// @ts-check
// The import() side of the seat belt: a module.register resolve hook
// (it runs on Node's loader thread) applying policy.js to what an
// extension's code imports. fs is refused here without fsWide: the
// checked fs is only available through require.
import { isBuiltin, createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const { SAFE, NEEDS, BROKERED, message, brokeredMessage } = createRequire(import.meta.url)('./policy.js');
let exts = []; // [{id, dir, caps}]

export function initialize(data) {
  exts = data.extensions;
}

const deny = (ext, what, cap) => {
  /** @type {HostError} */
  const err = new Error(message(ext.id, what, cap));
  err.code = 'ERR_AIRVSX_DENIED';
  throw err;
};

export async function resolve(specifier, context, next) {
  const parent = context.parentURL && context.parentURL.startsWith('file:') ? fileURLToPath(context.parentURL) : '';
  const ext = parent && exts.find((e) => parent.startsWith(e.dir + sep));
  if (!ext) return next(specifier, context);
  if (specifier === 'vscode') deny(ext, "import('vscode') (use require)", null);
  if (isBuiltin(specifier)) {
    const name = specifier.replace(/^node:/, '');
    if (NEEDS[name] && ext.caps.includes(NEEDS[name]) && (BROKERED[name] || name === 'child_process')) {
      /** @type {HostError} */
      const err = new Error(brokeredMessage(ext.id, `import('${specifier}')`, NEEDS[name], BROKERED[name] || "require('child_process')"));
      err.code = 'ERR_AIRVSX_DENIED';
      throw err;
    }
    if (SAFE.has(name) || (NEEDS[name] && ext.caps.includes(NEEDS[name]))) return next(specifier, context);
    return deny(ext, `import('${specifier}')`, NEEDS[name]);
  }
  const r = await next(specifier, context);
  if (!r.url.startsWith('file:')) return deny(ext, `import ${r.url}`, null);
  const real = realpathSync(fileURLToPath(r.url));
  if (!real.startsWith(ext.dir + sep)) deny(ext, `import ${real}, outside its own folder`, 'fsWide');
  return r;
}
