export * from '../src/jobs/deliver-job.ts';
