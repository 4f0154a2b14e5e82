export type { OpenAPIDocument, OpenAPIResponse, OpenAPIV3Service } from "./openapi.js";
export { buildOpenAPIV3, handleOpenAPIV3 } from "./openapi.js";
export type { OpenAPIV2Response, OpenAPIV2Service, Swagger2Document } from "./v2.js";
export { buildOpenAPIV2, convertOpenAPIV3ToV2, handleOpenAPIV2, openAPIV2ProtobufContentType, openAPIV2ProtobufMediaType } from "./v2.js";
export { encodeOpenAPIV2Protobuf } from "./v2-protobuf.js";
