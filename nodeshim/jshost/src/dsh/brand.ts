// `@deepseek-ai/dsh-commands/brand`: DSH brands command identifiers at the type level only, so at
// run time each brand constructor returns its argument.
export const CommandDefinitionId = <T>(value: T): T => value;
export const CommandInvocationId = <T>(value: T): T => value;
