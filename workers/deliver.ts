/** Entry point of the deliver worker: admissions and flushes on the deliver queue, run by src/jobs/deliver-job.ts. */
export { type DeliverWorkerOptions, startDeliverWorker } from '../src/jobs/deliver-job.ts';
