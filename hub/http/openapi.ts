/**
 * `GET /api/openapi.json`: an OpenAPI 3.1 document of the HTTP API, generated from the zod schemas
 * the routes validate and serialize with (one definition: the document cannot drift from what the
 * hub accepts and answers). Every route registered on the app is in it, found through Fastify's
 * onRoute hook. No token: it describes the API, not any tenant's data.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';
import { readFileSync } from 'node:fs';

type JsonSchema = Record<string, unknown>;

/** package.json's version (two levels above hub/http in the source and in dist/). */
function hubVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}
interface RouteSchemas {
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  response?: Record<string, z.ZodType>;
}
interface Route {
  method: string;
  url: string;
  schema: RouteSchemas;
  needsToken: boolean;
}

/** A zod schema as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect): `input` for requests, `output` for answers. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** Fastify's `/a/:id/*` as OpenAPI's `/a/{id}/{wildcard}`. */
function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{wildcard}');
}

/** A params or querystring object schema as OpenAPI parameters, one per property. */
function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

function operationOf(route: Route): JsonSchema {
  const { schema } = route;
  const pathNames = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const described = parametersOf(schema.params, 'path');
  // a path parameter without a params schema is still a parameter: a plain string
  const undescribed = pathNames.filter((name) => !described.some((p) => p.name === name)).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const wildcard = route.url.endsWith('*') ? [{ name: 'wildcard', in: 'path', required: true, schema: { type: 'string' } }] : [];
  const parameters = [...described, ...undescribed, ...wildcard, ...parametersOf(schema.querystring, 'query')];
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(schema.response ?? {})) {
    responses[status] = { description: `${status}`, content: { 'application/json': { schema: jsonSchemaOf(response, 'output') } } };
  }
  if (Object.keys(responses).length === 0) responses.default = { description: 'not described by a schema (a file, a redirect or text)' };
  return {
    operationId: `${route.method.toLowerCase()} ${route.url}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(schema.body, 'input') } } } } : {}),
    responses,
    ...(route.needsToken ? { security: [{ bearer: [] }] } : {}),
  };
}

/** The OpenAPI document of `routes`. */
export function openApiDocument(routes: readonly Route[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) (paths[openApiPath(route.url)] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Session Hub HTTP API',
      version: hubVersion(),
      description: 'Generated from the hub\'s zod schemas. Errors answer { error, message } (docs/protocol-choices.md). The Socket.IO events, from the same schemas: GET /api/socket-events.json (docs/protocol.md).',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a runner, dashboard, operator or admin token (docs/security.md)' } } },
    paths,
  };
}

/**
 * Collects every route registered on `app` from now on (call before registering the routes) and
 * serves their document at GET /api/openapi.json, built once, on the first request.
 */
export function serveOpenApi(app: FastifyInstance): void {
  const routes: Route[] = [];
  app.addHook('onRoute', (options: RouteOptions) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) {
      // Fastify adds a HEAD route to every GET: the same operation
      if (method === 'HEAD') continue;
      routes.push({ method, url: options.url, schema: (options.schema ?? {}) as RouteSchemas, needsToken: options.onRequest !== undefined });
    }
  });
  let document: JsonSchema | undefined;
  app.get('/api/openapi.json', async () => (document ??= openApiDocument(routes)));
}
