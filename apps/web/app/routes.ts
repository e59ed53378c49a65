import { index, layout, type RouteConfig, route } from '@react-router/dev/routes'

/** The site's routes. Header and footer rules live in the one site layout. */
export default [
  layout('routes/site-layout.tsx', [
    index('routes/home.tsx'),
    route('tips', 'routes/tips.tsx'),
    route('record', 'routes/record.tsx'),
    route('pricing', 'routes/pricing.tsx'),
    route('about', 'routes/about.tsx'),
    route('contact', 'routes/contact.tsx'),
    route('login', 'routes/login.tsx'),
    route('register', 'routes/register.tsx'),
    route('forgot-password', 'routes/forgot-password.tsx'),
    route('reset-password', 'routes/reset-password.tsx'),
    route('payment', 'routes/payment.tsx'),
    route('*', 'routes/not-found.tsx'),
  ]),
  route('dashboard', 'routes/dashboard.tsx'),
  route('dashboard/discord/callback', 'routes/discord-callback.tsx'),
  route('admin', 'routes/admin.tsx'),
] satisfies RouteConfig
