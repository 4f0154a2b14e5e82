export type { OpenAPIDocument, OpenAPIResponse, OpenAPIV3Service } from "./openapi.js";
export { buildOpenAPIV3, handleOpenAPIV3 } from "./openapi.js";
