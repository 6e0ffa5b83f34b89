/**
 * A stand-in for any webhook-style HTTP endpoint (Discord, Teams, Telegram, ntfy, a generic
 * webhook): the Slack receiver records every request and answers as scripted, whatever the path.
 */
export {
  type ReceivedRequest,
  type Reply,
  type SlackReceiver as HttpReceiver,
  startSlackReceiver as startHttpReceiver,
} from './slack-receiver.ts';
