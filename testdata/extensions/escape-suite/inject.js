"use strict";
// Loaded by a new node through NODE_OPTIONS=--require (extension.js's
// node-options cases): writing the marker proves it ran.
const f = process.env.AIRVSX_INJECT_MARKER;
if (f) require("fs").writeFileSync(f, "injected\n");
