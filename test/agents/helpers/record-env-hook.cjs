// A test-only hook command: appends the value of the environment variable named second (as the agent's hook sees it; "(unset)" when it is not) to the file named first, one a line.
const { appendFileSync } = require('node:fs');
const [file, name] = process.argv.slice(2);
appendFileSync(file, `${process.env[name] ?? '(unset)'}\n`);
