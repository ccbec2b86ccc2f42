export { closeKeptAliveConnections, deliver } from './webhook-client';
export type { DeliveryOptions, DeliveryResult, WebhookRequest } from './webhook-client';
export { destinationProblem, isLocalhostName, privateDestination } from './destination';
export { signPayload } from './signing';
export { applyMasks, isCredentialParam, isSensitiveHeader, MASK } from './raw-message';
export { DATATYPE_HEADER, deliveryHeaders, FIRST_MESSAGE_HEADER, LAST_MESSAGE_HEADER, SERVICE_HEADERS, USER_AGENT } from './service-headers';
