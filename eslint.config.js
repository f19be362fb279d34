// ESLint over every script the project ships or runs (scripts/test.sh runs it after ruff):
// the pages' scripts (static/ and each app's static/), the benchmarks' and the contract tests'
// Node scripts. Vendored files are not ours to change. `node_modules/.bin/eslint .` from the
// repository's root; package.json pins ESLint and its two helpers.

import js from "@eslint/js";
import globals from "globals";

export default [
  {
    // Not the project's scripts: virtualenvs, data, test output, vendored libraries.
    ignores: [
      ".venv/**",
      ".venv-clients/**",
      "data/**",
      "artifacts/**",
      "test-artifacts/**",
      "static/vendor/**",
      "**/node_modules/**",
    ],
  },
  js.configs.recommended,
  {
    // The pages' scripts: ES modules (<script type="module">) unless listed below, run by the
    // browser.
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: globals.browser,
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Rules that catch bugs, beyond the recommended set.
      // `x != null` is the one loose comparison meant: null or undefined, nothing else.
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-implicit-globals": "error",
      "prefer-const": "error",
      "no-shadow": ["error", { builtinGlobals: false }],
      "no-use-before-define": ["error", { functions: false, classes: true, variables: true }],
      "no-promise-executor-return": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "array-callback-return": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
    },
  },
  {
    // Classic scripts (a plain <script>, or Django admin's Media): their top level is global.
    files: [
      "core/static/core/copy.js",
      "core/static/core/graphiql.js",
      "*/static/*/settings.js",
      "workflows/static/workflows/admin-order.js",
    ],
    languageOptions: { sourceType: "script" },
  },
  {
    // GraphiQL's page loads React and GraphiQL from static/vendor before its own script.
    files: ["core/static/core/graphiql.js"],
    languageOptions: {
      globals: { React: "readonly", ReactDOM: "readonly", GraphiQL: "readonly" },
    },
  },
  {
    // Node scripts: the contract tests' client runner (CommonJS) and the benchmarks'.
    files: ["tests/contract/node/*.js", "bench/*.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
  {
    // The pages' pure modules' unit tests, run by Node's test runner as ES modules.
    files: ["tests/js/*.test.js"],
    languageOptions: { globals: globals.node },
  },
  {
    // This file, run by Node as an ES module.
    files: ["eslint.config.js"],
    languageOptions: { globals: globals.node },
  },
];
