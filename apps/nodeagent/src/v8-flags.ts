/**
 * V8 settings of the node agent process, applied when this module is evaluated: `main.ts`
 * imports it first, before the agent's modules load (their loading alone would already grow the
 * young generation).
 *
 * V8's young generation otherwise grows to 2 × 16 MiB under the allocation bursts of start-up
 * and of a wave of pod starts, and keeps that memory: with 101 pods the agent's RSS was 167-180
 * MiB, of which 32 MiB was the new space while the live heap was 34 MiB. Kept at its initial size
 * (1 MiB semi-spaces) the agent holds ~35-45 MiB less, for a few more (short) scavenges. Set at
 * run time because V8 clamps the growth factor to at least 2 when given on the command line.
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--semi-space-growth-factor=1");
