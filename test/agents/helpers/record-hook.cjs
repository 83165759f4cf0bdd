// A test-only hook command: appends the payload the agent sent (stdin, or the last argument) to the file named first, one JSON a line.
const { appendFileSync } = require('node:fs');
const [file, argument] = process.argv.slice(2);
if (argument !== undefined) appendFileSync(file, `${JSON.stringify(JSON.parse(argument))}\n`);
else {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => appendFileSync(file, `${JSON.stringify(JSON.parse(text))}\n`));
}
