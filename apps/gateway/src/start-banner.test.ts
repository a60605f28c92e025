import test from 'ava';
import { startBanner } from './start-banner.js';

test('the start message names the dashboard, the API reference and where a sign-in code appears', (t) => {
  const logged = startBanner({ baseUrl: 'http://127.0.0.1:8080', dashboard: true, signInCodes: 'logged' });
  t.regex(logged, /Dashboard {6}http:\/\/127\.0\.0\.1:8080\/dashboard\n/);
  t.regex(logged, /API reference {2}http:\/\/127\.0\.0\.1:8080\/api\/v1\/docs\n/);
  t.regex(logged, /Sign-in codes {2}written to this log \(the line "oauth sign-in code"/);
  t.regex(logged, /gateway user invite --email/);

  t.regex(
    startBanner({ baseUrl: 'https://pay.example/', dashboard: true, signInCodes: 'mailed' }),
    /Dashboard {6}https:\/\/pay\.example\/dashboard\n[\s\S]*mailed through plugins\.oauth\.smtp\.url/,
  );
  t.regex(startBanner({ baseUrl: 'https://pay.example', dashboard: true, signInCodes: 'unavailable' }), /nobody can sign in to the dashboard/);

  const noDashboard = startBanner({ baseUrl: 'http://127.0.0.1:3000', dashboard: false, signInCodes: 'logged' });
  t.is(noDashboard, '  API reference  http://127.0.0.1:3000/api/v1/docs\n');
});
