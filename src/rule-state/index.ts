/**
 * Rule-state persistence: the one way the rules' condition states are written to and read from
 * the bytes stored beside a snapshot. The rules engine stays pure and knows nothing of bytes; the
 * byte codec under this (`snapshot/bytes.ts`) is shared with the snapshot records.
 * - write: `encodeRuleState(state, observation)`, columns aligned with the observation's keywords;
 * - read: `salvageRuleState(bytes, observation)` keeps what is readable and says what was lost
 *   (the poller's read), `decodeRuleState` throws on anything unreadable (tests, benchmarks).
 */
export {
  decodeRuleState,
  encodeRuleState,
  RuleStateDecodeError,
  RuleStateEncodeError,
  type SalvagedRuleState,
  salvageRuleState,
} from './codec.ts';
