import { site } from '@edgeclub/shared'
import { Card, Container, PageHero } from '../components/ui/layout'
import { contactFormIsland } from '../features/contact/contact-form'
import { Island, islandsPage } from '../lib/island'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    'Contact',
    `Questions about picks, signals or billing? ${site.name} support answers 24/7 by email, live chat and Discord.`,
  )
}

const faq = [
  {
    question: 'How do I get the picks and signals?',
    answer:
      'In your dashboard and in the private Discord, the moment they are published. Alerts arrive 24/7.',
  },
  {
    question: 'Can I cancel at any time?',
    answer: 'Yes. Cancel from your dashboard and keep access until the end of the period you paid for.',
  },
  {
    question: 'Is there a money-back guarantee?',
    answer: `Every plan has a ${site.figures.moneyBackDays}-day money-back guarantee. Write to us and we refund you.`,
  },
  {
    question: 'Which payment methods do you accept?',
    answer: 'All major cards through Stripe, and crypto over a blockchain payment network.',
  },
]

export const handle = islandsPage

export default function Contact() {
  return (
    <>
      <PageHero
        title="Contact us"
        intro="Questions about picks, signals, billing or partnerships? We answer around the clock."
      />
      <Container className="grid gap-8 py-14 lg:grid-cols-5">
        <Card className="lg:col-span-3">
          <Island of={contactFormIsland} />
        </Card>
        <div className="space-y-6 lg:col-span-2">
          <Card>
            <h2 className="text-xl font-bold text-white">Get in touch</h2>
            <dl className="mt-4 space-y-4 text-sm">
              <div>
                <dt className="font-semibold text-slate-200">Email support</dt>
                <dd>
                  <a
                    className="text-emerald-300 underline-offset-4 hover:underline"
                    href={`mailto:${site.supportEmail}`}
                  >
                    {site.supportEmail}
                  </a>
                </dd>
              </div>
              <div>
                <dt className="font-semibold text-slate-200">Live chat</dt>
                <dd className="text-slate-300">Available 24/7 from your dashboard</dd>
              </div>
              <div>
                <dt className="font-semibold text-slate-200">Community chat</dt>
                <dd className="text-slate-300">
                  Members talk picks and trades in our private Discord server
                </dd>
              </div>
              <div>
                <dt className="font-semibold text-slate-200">Hours</dt>
                <dd className="text-slate-300">24/7, Monday to Sunday, every day of the year</dd>
              </div>
            </dl>
          </Card>
          <Card>
            <h2 className="text-xl font-bold text-white">Frequently asked questions</h2>
            <div className="mt-4 divide-y divide-slate-800">
              {faq.map((item) => (
                <details key={item.question} className="group py-3">
                  <summary className="cursor-pointer list-none font-medium text-white focus-visible:outline-2 focus-visible:outline-emerald-300">
                    {item.question}
                  </summary>
                  <p className="mt-2 text-sm text-slate-300">{item.answer}</p>
                </details>
              ))}
            </div>
          </Card>
        </div>
      </Container>
    </>
  )
}
