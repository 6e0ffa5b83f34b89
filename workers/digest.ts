/** Entry point of the digest worker: `processDigest` on the digest queue, run by src/jobs/digest-job.ts. */
export { type DigestWorkerOptions, startDigestWorker } from '../src/jobs/digest-job.ts';
