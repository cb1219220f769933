// Preloaded into a harness2 process by tests/cli/headless.test.ts: at exit it prints how many
// Ink or React modules the process loaded, so a headless path that pulls in the UI is caught.
process.on("exit", () => {
  const loaded = Object.keys(require.cache).filter((k) =>
    /node_modules\/(ink|react|ink-spinner)\//.test(k),
  );
  process.stderr.write(`ui-modules-loaded ${loaded.length}\n`);
});
