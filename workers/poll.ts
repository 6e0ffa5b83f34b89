export * from '../src/jobs/poll-job.ts';
