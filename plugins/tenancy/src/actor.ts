// The audit actor is the kernel's (generic, used by every plugin that writes); re-exported for tenancy's own modules.
export { CLI_ACTOR, restActor, type Actor } from '@gw/kernel';
