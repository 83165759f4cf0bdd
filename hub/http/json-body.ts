import { BODY_LEVELS, nestingProblem } from '../../shared/protocol/json-depth.js';
import { forbiddenKeyError, forbiddenKeyPath } from './forbidden-keys.js';

function badRequest(message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode: 400 });
}

/**
 * Every route's JSON body parser (issue 33.1), in an order where no step can take long whatever the
 * body's shape: the nesting is read on the text (one loop), then JSON.parse (V8's is iterative),
 * then the prototype-key walk (iterative). A body past the depth limit is refused before anything
 * walks it, and each refusal is a 400 naming what is wrong, never a 500.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw badRequest("Body cannot be empty when content-type is set to 'application/json'");
  const tooDeep = nestingProblem(text, BODY_LEVELS, 'the body');
  if (tooDeep !== undefined) throw badRequest(tooDeep);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`Body is not valid JSON: ${(error as Error).message}`);
  }
  const path = forbiddenKeyPath(value);
  if (path !== undefined) throw forbiddenKeyError(path);
  return value;
}
