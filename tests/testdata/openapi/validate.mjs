// Validates an OpenAPI document with @apidevtools/swagger-parser: the OpenAPI 3.1 JSON Schema,
// then every $ref resolved. Prints "valid" or the validator's message and exits 1.
// Usage: node validate.mjs openapi.json
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.AGENT_DECK_NODE_MODULES, 'noop.js'));
const SwaggerParser = require('@apidevtools/swagger-parser');

try {
  const api = await SwaggerParser.validate(process.argv[2]);
  const ops = Object.values(api.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`valid: ${api.info.title}, ${ops} operations`);
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
