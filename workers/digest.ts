export * from '../src/jobs/digest-job.ts';
