// Types of generate.mjs for the TypeScript tests that import it.

/** Absolute path of the package directory. */
export declare const packageDir: string;
/** Absolute path of the committed `openapi.json`. */
export declare const documentPath: string;
/** Absolute path of the committed `src/generated/schema.ts`. */
export declare const schemaPath: string;
/** The options passed to openapi-typescript. */
export declare const openapiTSOptions: Readonly<Record<string, unknown>>;
/** Renders both generated files in memory. */
export declare function renderGenerated(): Promise<{ documentJson: string; schemaTs: string }>;
