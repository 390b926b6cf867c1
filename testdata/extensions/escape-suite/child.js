"use strict";
// The module node-options-fork forks: it does nothing (inject.js is what
// the fork tries to run first).
