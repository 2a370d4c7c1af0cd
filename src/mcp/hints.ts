import type { AdminOperation } from '../admin/define-operation.ts';

/**
 * MCP tool annotations (spec: server/tools "Tool annotations"): hints for hosts, never security.
 * Every tool carries all four, each set to what is true of it: a host that finds one missing
 * assumes the worst (a destructive, non-idempotent write that reaches the open world) and asks
 * the user before every call. This module is where they are derived, for every kind of tool.
 */
export interface ToolHints {
  /** Changes nothing anywhere. */
  readonly readOnlyHint: boolean;
  /** May remove or give up something (meaningful only when not read-only). */
  readonly destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  readonly idempotentHint: boolean;
  /** Reaches outside this server (a URL an operator gave, someone's mailbox). */
  readonly openWorldHint: boolean;
}

/** A lookup of this server's data. */
export const READ_ONLY: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** A change to this server's data that reaches nothing outside it. */
export function changesData(change: { destructive: boolean; idempotent: boolean }): ToolHints {
  return {
    readOnlyHint: false,
    destructiveHint: change.destructive,
    idempotentHint: change.idempotent,
    openWorldHint: false,
  };
}

/**
 * The admin operations that reach outside this server, and how. Every other operation touches
 * only this server's data (the webhook deliveries its changes cause are the worker's doing).
 */
export const REACHES_OUTSIDE: Readonly<Record<string, string>> = {
  'members.invite': 'emails the invitation link when SMTP is configured',
  'members.resend_invitation': 'emails a new invitation link when SMTP is configured',
  'school.send_test_webhook': 'sends a test event to the endpoint’s URL',
  'school.replay_webhooks': 'sends past events to the endpoint’s URL again',
};

/**
 * An operator tool's hints: read-only, destructive and idempotent as the operation says (its
 * method's, define-operation.ts METHOD_HINTS: GET read-only; PUT, PATCH and DELETE idempotent;
 * DELETE destructive; a POST only what it declares), open-world per REACHES_OUTSIDE.
 */
export function operationHints(op: AdminOperation): ToolHints {
  return {
    readOnlyHint: op.annotations.readOnly,
    destructiveHint: op.annotations.destructive,
    idempotentHint: op.annotations.idempotent,
    openWorldHint: Object.hasOwn(REACHES_OUTSIDE, op.name),
  };
}

const HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** Refuses, at load time, hints that are missing or contradict each other. */
export function checkHints(tool: string, hints: ToolHints): void {
  for (const key of HINT_KEYS) {
    if (typeof hints[key] !== 'boolean') throw new Error(`MCP tool ${tool}: ${key} must be a boolean`);
  }
  if (hints.readOnlyHint && (hints.destructiveHint || !hints.idempotentHint)) {
    throw new Error(`MCP tool ${tool}: a read-only tool is neither destructive nor non-idempotent`);
  }
}
