/** Entry point of the poll worker: `processPoll` on the poll queue, run by src/jobs/poll-job.ts. */
export { type PollWorkerOptions, startPollWorker } from '../src/jobs/poll-job.ts';
