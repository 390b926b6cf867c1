// Types for the type check of the host's scripts (tsc --noEmit over
// tsconfig.json, run by TestJSTypes); not part of the host the launcher
// writes.

// HostError is an Error the host makes with the fields the launcher and
// extensions read: code (ERR_AIRVSX_DENIED, ...), the capability a refusal
// names, and the JSON-RPC error code and data of an answer.
interface HostError extends Error {
  code?: string;
  capability?: string | null;
  rpcCode?: number;
  rpcData?: unknown;
}

// The Node.js internals the seat belt (gate.js) replaces: @types/node
// does not declare them.
declare module 'module' {
  namespace Module {
    function _load(request: string, parent: any, isMain: boolean): any;
    function _resolveFilename(request: string, parent: unknown, isMain?: boolean, options?: unknown): string;
    function registerHooks(hooks: unknown): unknown;
  }
}

declare namespace NodeJS {
  interface Process {
    reallyExit(code?: number): never;
    binding(name: string): any;
    _linkedBinding(name: string): any;
    execve?(file: string, args?: string[], env?: Record<string, string>): never;
  }
}
