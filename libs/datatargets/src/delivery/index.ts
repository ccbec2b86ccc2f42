export { closeKeptAliveConnections, deliver } from './webhook-client';
export type { DeliveryOptions, DeliveryResult, WebhookRequest } from './webhook-client';
export { destinationProblem } from './destination';
export { signPayload } from './signing';
export { applyMasks, isCredentialParam, isSensitiveHeader, MASK } from './raw-message';
