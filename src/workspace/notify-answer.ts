/**
 * Why a `watch --notify` post was not delivered, for its error: the status; for a redirect, the host it points to (a
 * relative `Location` is the notification host), never the URL, whose path holds the webhook's secret. The post is made
 * with `redirect: 'manual'`: a webhook that redirects is misconfigured or hijacked, and following it would send the
 * drift report (names, errors) on to another host and count it as delivered on that host's answer.
 */
export function notifyRefusal(response: Pick<Response, 'status' | 'headers'>, notifyUrl: string): string {
  const answered = `the notification endpoint answered ${response.status}`;
  if (response.status < 300 || response.status >= 400) return answered;
  const location = response.headers.get('location');
  let to = '';
  try {
    if (location !== null) to = ` to ${new URL(location, notifyUrl).host}`;
  } catch {
    // A Location that is not a URL: the redirect is refused the same, without saying where it pointed.
  }
  return `${answered}, a redirect${to}: not followed, the report is not sent on`;
}
