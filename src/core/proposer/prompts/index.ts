// Every prompt the method sends (docs/method.md §4): each builder returns the `job` text of one
// session's mission; stage sessions get no system text. No prompt may name how work is measured.

export { type AggregateOptions, aggregate, COMPOSER_LEANINGS } from "./aggregate.ts";
export { HEADING, POOL_KINDS, type PoolKind } from "./blocks.ts";
export { type ComposeRoundOptions, composeRound } from "./compose-round.ts";
export { DIMS, type Dim } from "./dimension-blocks.ts";
export { experience, experienceRepair } from "./experience.ts";
export { type ProposeOptions, propose } from "./propose.ts";
export { type SelectOptions, select } from "./select.ts";
export {
  PROMPTS_VERSION,
  PromptInputError,
  type PromptPack,
  type PromptSurface,
  SURFACE_NAMES,
  type SurfaceName,
} from "./text.ts";
