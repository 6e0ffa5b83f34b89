/**
 * What the browser tests check on every console page: no horizontal scroll at a phone's 390 px
 * and at 1280 px, and no serious accessibility violation as axe-core (npm, injected through the
 * DevTools protocol: the console's CSP runs no script of its own) finds them; with a screenshot
 * of each width in .artifacts/img/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { artifactPath } from '../helpers/artifacts.ts';

export const WIDTHS = [390, 1280] as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface LayoutFinding {
  page: string;
  width: number;
  documentWidth: number;
  /** axe's serious and critical violations: rule id and how many nodes. */
  violations: string[];
}

/** Loads `path` at each width, measures, runs axe, and saves `console-NAME-WIDTH.png`. */
export async function checkLayout(
  page: Page,
  url: string,
  name: string,
  /** For a page drawn by script (Bull Board): waits until it is drawn. */
  ready?: (page: Page) => Promise<void>,
): Promise<LayoutFinding[]> {
  const findings: LayoutFinding[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(url);
    await ready?.(page);
    const documentWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    // page.evaluate runs through the DevTools protocol, which the page's CSP does not govern.
    if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(axeSource);
    const violations = (await page.evaluate(`axe
      .run(document, { resultTypes: ['violations'] })
      .then((r) => r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ' (' + v.nodes.length + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))`)) as string[];
    await page.screenshot({ path: artifactPath('img', `console-${name}-${width}.png`), fullPage: true });
    findings.push({ page: name, width, documentWidth, violations });
  }
  return findings;
}
